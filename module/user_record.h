/* SPDX-License-Identifier: GPL-2.0 */
/* The user records of /dev/ustack (user_record.c). */
#ifndef USTACK_USER_RECORD_H
#define USTACK_USER_RECORD_H

void ustack_user_record_init(void);
void ustack_user_record_exit(void);

#endif /* USTACK_USER_RECORD_H */
