// C++ test program for ustack-report: names that need demangling.
namespace shapes {
struct Circle {
	int r;
	__attribute__((noinline)) int area(int k) const;
};
}

int shapes::Circle::area(int k) const
{
	volatile int v = r * r * k;

	return v * 3;
}

namespace {
__attribute__((noinline)) int hidden(int x)
{
	volatile int v = x;

	return v + 1;
}
}

template <typename T> __attribute__((noinline)) T twice(T x)
{
	volatile T v = x;

	return v * 2;
}

int main(int argc, char **)
{
	shapes::Circle c{argc};

	return c.area(2) + hidden(argc) + (int)twice<long>(argc);
}
