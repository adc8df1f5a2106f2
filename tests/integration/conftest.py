"""Shared by every pytest of the integration suite.

The testbed's agents come from DCN_BUILD_DIR, which `make test` sets to the
sanitized build (build-test). Their sanitizer reports go to the testbed's
logs (RUN_DIR/logs/<server>.stderr), where no test would read them: a
report written while a test ran fails that test, as the shell tests' own
check does (agent_netns_lib.sh)."""

import pytest

from tests.support import testing


@pytest.fixture(autouse=True)
def no_sanitizer_report_in_testbed_logs():
    mark = testing.log_sizes()
    yield
    found = testing.sanitizer_reports(mark)
    if found:
        pytest.fail("sanitizer report in the testbed's logs:\n" +
                    "\n".join("== %s\n%s" % (p, text) for p, text in found), pytrace=False)
