"""The integration suite's check of the testbed's logs for sanitizer
reports (conftest.py, tests/support/testing.py, sanitizer_reports): only what
was written after the mark counts. No root needed."""

from tests.support import testing

ASAN = b"==12==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020\n    #0 0x4 in eng_rx\n"
LSAN = b"==12==ERROR: LeakSanitizer: detected memory leaks\n"
UBSAN = b"agent/src/agent/core/engine.c:10:5: runtime error: signed integer overflow\n"


def test_reports_written_after_the_mark_are_found(tmp_path):
    (tmp_path / "h00.stderr").write_bytes(b"old line\n" + ASAN)   # before the mark: an earlier test's
    (tmp_path / "h01.stderr").write_bytes(b"")
    mark = testing.log_sizes(str(tmp_path))
    assert testing.sanitizer_reports(mark, str(tmp_path)) == []
    with open(tmp_path / "h01.stderr", "ab") as f:
        f.write(b"agent up\n" + LSAN)
    (tmp_path / "h02.stderr").write_bytes(UBSAN)                  # a log the test created
    (tmp_path / "h03.log").write_bytes(b"neighbour h13 up\n")
    found = dict(testing.sanitizer_reports(mark, str(tmp_path)))
    assert set(found) == {str(tmp_path / "h01.stderr"), str(tmp_path / "h02.stderr")}
    assert found[str(tmp_path / "h01.stderr")].startswith("ERROR: LeakSanitizer")
    assert "runtime error: signed integer overflow" in found[str(tmp_path / "h02.stderr")]


def test_no_log_folder_is_no_report(tmp_path):
    assert testing.log_sizes(str(tmp_path / "none")) == {}
    assert testing.sanitizer_reports({}, str(tmp_path / "none")) == []


def test_a_refused_system_call_is_a_report(tmp_path):
    mark = testing.log_sizes(str(tmp_path))
    (tmp_path / "h00.stderr").write_bytes(
        b"dcn-agent: system call 79 denied (os/syscall_filter.c; counted as syscall_denied)\n")
    found = testing.sanitizer_reports(mark, str(tmp_path))
    assert [p for p, _ in found] == [str(tmp_path / "h00.stderr")]
