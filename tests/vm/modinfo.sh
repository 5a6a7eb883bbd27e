# modinfo shows the version, the GPL license and a description.
# kernels: 6.1 6.12 sid debug
. ./lib.sh
ustack_unload	# whatever an earlier test left loaded
ustack_install
v=$(modinfo -F version ustack) || fail "modinfo"
[ -n "$v" ] || fail "no version"
[ "$(modinfo -F license ustack)" = GPL ] || fail "license $(modinfo -F license ustack)"
[ -n "$(modinfo -F description ustack)" ] || fail "no description"
echo "version $v"
