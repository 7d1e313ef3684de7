#define DOCTEST_CONFIG_IMPLEMENT
#include <cstdlib>
#include <doctest/doctest.h>

int main(int argc, char** argv) {
    // The tests never read or write the user's step history (sched/history.h);
    // a test of it sets its own folder.
    ::setenv("PHC_HISTORY", "off", 1);
    return doctest::Context(argc, argv).run();
}
