"""results/reliability.md is shared by two measuring runs, the fuzzing run
(tests/fuzz/run_fuzz.sh --report) and the soak (experiments/soak); each
rewrites only its own section (experiments/explib/mdsection.py). No root
needed."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
from explib import mdsection  # noqa: E402

TOOL = os.path.join(HERE, "..", "..", "experiments", "explib", "mdsection.py")


def test_sections_are_written_replaced_and_kept(tmp_path):
    page = tmp_path / "reliability.md"
    mdsection.write_section(str(page), "fuzzing", "run_fuzz", "## Fuzzing\n\nold fuzz figures\n")
    mdsection.write_section(str(page), "soak", "soak", "## Soak\n\nsoak figures")
    mdsection.write_section(str(page), "fuzzing", "run_fuzz", "## Fuzzing\n\nnew fuzz figures")
    text = page.read_text()
    assert text.startswith(mdsection.TITLE + "\n\n" + mdsection.PREAMBLE + "\n")
    assert "old fuzz" not in text and text.count("new fuzz figures") == 1 and text.count("soak figures") == 1
    # the fuzzing section keeps its place before the soak's
    assert text.index("new fuzz figures") < text.index("soak figures")
    assert text.count("<!-- begin fuzzing: written by run_fuzz; do not edit by hand -->") == 1
    assert text.count("<!-- end soak -->") == 1
    assert not [f for f in os.listdir(tmp_path) if f != "reliability.md"], "temporary file left"


def test_a_page_without_sections_is_kept_whole(tmp_path):
    page = tmp_path / "reliability.md"
    page.write_text("# Reliability figures\n\nfigures of an older run\n")
    mdsection.write_section(str(page), "soak", "soak", "## Soak\n\nsoak figures")
    text = page.read_text()
    assert text.startswith("# Reliability figures\n\nfigures of an older run\n\n<!-- begin soak")


@pytest.mark.parametrize("text", ["<!-- begin soak: written by x; do not edit by hand -->\nno end\n",
                                  "<!-- end soak -->\n<!-- begin soak: written by x; do not edit by hand -->\n"])
def test_unpaired_markers_are_refused_and_the_page_is_untouched(tmp_path, text):
    page = tmp_path / "reliability.md"
    page.write_text(text)
    r = subprocess.run([sys.executable, TOOL, str(page), "soak", "experiments/soak"], input="## Soak\n",
                       capture_output=True, text=True)
    assert r.returncode == 1 and "markers unpaired" in r.stderr, r
    assert page.read_text() == text


def test_the_shell_form_replaces_from_standard_input(tmp_path):
    page = tmp_path / "reliability.md"
    for body in ("## Fuzzing\n\nfirst\n", "## Fuzzing\n\nsecond\n"):
        r = subprocess.run([sys.executable, TOOL, str(page), "fuzzing", "tests/fuzz/run_fuzz.sh --report"],
                           input=body, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    text = page.read_text()
    assert "second" in text and "first" not in text
    assert "<!-- begin fuzzing: written by tests/fuzz/run_fuzz.sh --report; do not edit by hand -->" in text


def test_a_bad_section_name_is_refused(tmp_path):
    with pytest.raises(ValueError):
        mdsection.write_section(str(tmp_path / "p.md"), "Soak section", "x", "body")
    assert not os.path.exists(tmp_path / "p.md")
