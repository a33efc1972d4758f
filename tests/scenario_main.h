/* SPDX-License-Identifier: MIT */
/*
 * scenario_main.h - one test executable, one scenario per process: loads
 * cannot be undone, so every scenario that loads libraries runs alone.
 * ctest registers `test_x SCENARIO` once per scenario; exit 77 (ctest's
 * SKIP_RETURN_CODE) marks a visible skip. Include after <cmocka.h>.
 */
#ifndef CUDALOAD_TESTS_SCENARIO_MAIN_H
#define CUDALOAD_TESTS_SCENARIO_MAIN_H

#include <stdio.h>
#include <string.h>

/* Set before skip(): the scenario exits 77 (ctest: skipped). */
static int scenario_skipped;

#define SKIP_SCENARIO(reason)                                                  \
  do {                                                                         \
    print_message("[  SKIPPED ] %s\n", (reason));                              \
    scenario_skipped = 1;                                                      \
    skip();                                                                    \
  } while (0)

/* Run the scenario argv[1] names: 0 passed, 1 failed, 77 skipped, 2 for a
 * bad command line (with the list of scenarios). */
static int run_named_scenario(const char *program,
                              const struct CMUnitTest *scenarios, size_t count,
                              int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SCENARIO\nscenarios:", program);
    for (size_t i = 0; i < count; i++)
      fprintf(stderr, " %s", scenarios[i].name);
    fprintf(stderr, "\n");
    return 2;
  }
  for (size_t i = 0; i < count; i++) {
    if (strcmp(argv[1], scenarios[i].name) == 0) {
      const struct CMUnitTest one[1] = {scenarios[i]};
      if (_cmocka_run_group_tests(program, one, 1, NULL, NULL) != 0)
        return 1;
      return scenario_skipped ? 77 : 0;
    }
  }
  fprintf(stderr, "%s: no scenario named \"%s\"\n", program, argv[1]);
  return 2;
}

#endif
