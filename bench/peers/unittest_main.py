"""unittest's main for the peer tests that scripts/test runs: the same run,
then one line per reason tests were skipped, with how many, so a skip is
never silent in CI's log ("skipped 6 tests: torch is not installed here...")."""
import collections
import sys
import unittest


def main(module="__main__"):
    program = unittest.main(module=module, exit=False)
    result = program.result
    reasons = collections.Counter(reason for _, reason in result.skipped)
    for reason, count in sorted(reasons.items()):
        noun = "test" if count == 1 else "tests"
        print(f"skipped {count} {noun}: {reason}")
    sys.exit(0 if result.wasSuccessful() else 1)
