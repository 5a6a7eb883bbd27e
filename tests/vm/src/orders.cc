// SPDX-License-Identifier: GPL-2.0
/*
 * make demo's C++ program: an order book, built without frame pointers
 * (-O2 -fomit-frame-pointer, no SFrame), so that its stacks run through its
 * own code and libstdc++'s (std::sort, std::map, std::string) as a real
 * C++ service's do.
 *   orders SECONDS   main > run > Book::match > ... for SECONDS seconds
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline))

struct Order {
	std::string symbol;
	long price;
	long qty;
};

// Virtual calls: the stacks go through a vtable, as a service's do.
struct Pricer {
	virtual ~Pricer() = default;
	virtual long quote(const Order &o) const = 0;
};

struct Spread : Pricer {
	NOINLINE long quote(const Order &o) const override
	{
		return o.price + (long)(o.symbol.size() % 3);
	}
};

class Book {
public:
	explicit Book(std::unique_ptr<Pricer> p) : pricer(std::move(p)) {}

	NOINLINE void add(unsigned long seed)
	{
		char sym[16];

		snprintf(sym, sizeof(sym), "SYM%03lu", seed % 200);
		orders.push_back({ sym, (long)(seed % 10007), (long)(seed % 97) + 1 });
	}

	NOINLINE long match()
	{
		long volume = 0;

		std::sort(orders.begin(), orders.end(),
			  [this](const Order &a, const Order &b) {
				  return pricer->quote(a) < pricer->quote(b);
			  });
		for (const Order &o : orders)
			volume += (positions[o.symbol] += o.qty);
		orders.clear();
		return volume;
	}

private:
	std::unique_ptr<Pricer> pricer;
	std::vector<Order> orders;
	std::map<std::string, long> positions;
};

NOINLINE static long run(double seconds)
{
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::duration<double>(seconds);
	Book book(std::make_unique<Spread>());
	unsigned long seed = 1;
	long total = 0;

	while (std::chrono::steady_clock::now() < end) {
		for (int i = 0; i < 2000; i++) {
			seed = seed * 6364136223846793005UL + 1442695040888963407UL;
			book.add(seed >> 33);
		}
		total += book.match();
	}
	return total;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;

	printf("orders: %ld\n", run(seconds));
	return 0;
}
