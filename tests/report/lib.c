/* Shared library for the ustack-report tests. */
__attribute__((noinline)) static int lib_inner(int x)
{
	volatile int v = x;

	return v * 7;
}

__attribute__((noinline)) int lib_func(int x)
{
	return lib_inner(x) + 3;
}
