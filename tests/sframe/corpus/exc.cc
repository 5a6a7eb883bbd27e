// SPDX-License-Identifier: GPL-2.0
// SFrame corpus: C++ with exceptions, RAII, templates, virtual calls.
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline))

struct Guard {
	std::string name;
	explicit Guard(std::string n) : name(std::move(n)) {}
	~Guard() { std::fputs(name.c_str(), stderr); }
};

struct Shape {
	virtual ~Shape() = default;
	virtual double area(int n) const = 0;
};

struct Sq : Shape {
	double s;
	explicit Sq(double x) : s(x) {}
	double area(int n) const override
	{
		if (n < 0)
			throw std::invalid_argument("negative");
		return s * s * n;
	}
};

template <typename T>
NOINLINE T sum(const std::vector<T> &v)
{
	T r{};
	for (const auto &x : v)
		r += x;
	return r;
}

NOINLINE static int thrower(int depth)
{
	Guard g("t");
	std::vector<int> v(static_cast<size_t>(depth) + 1, depth);

	if (depth == 0)
		throw std::runtime_error("bottom");
	return thrower(depth - 1) + sum(v);
}

NOINLINE static int catcher(int n)
{
	try {
		return thrower(n);
	} catch (const std::runtime_error &e) {
		return static_cast<int>(std::string(e.what()).size());
	}
}

NOINLINE static double shapes(int n)
{
	std::vector<std::unique_ptr<Shape>> v;
	double total = 0;

	for (int i = 0; i < n; i++)
		v.push_back(std::make_unique<Sq>(i));
	for (auto &s : v) {
		try {
			total += s->area(n - 3);
		} catch (const std::exception &) {
			total -= 1;
		}
	}
	return total;
}

NOINLINE static std::string words(int n)
{
	std::map<std::string, int> m;
	std::string out;

	for (int i = 0; i < n; i++)
		m["w" + std::to_string(i % 5)] += i;
	for (auto &kv : m)
		out += kv.first + "=" + std::to_string(kv.second) + ";";
	return out;
}

int main(int argc, char **argv)
{
	int r = catcher(argc + 3);

	r += static_cast<int>(shapes(argc + 4));
	r += static_cast<int>(words(argc * 10).size());
	std::printf("%d %s\n", r, argv[0]);
	return 0;
}
