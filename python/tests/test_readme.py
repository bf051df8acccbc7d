"""The README's Python example is real output: run it as a doctest."""

import doctest
import os

import pytest

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


def test_readme_python_block():
    if not os.path.exists(README):
        pytest.skip("README.md is not beside the tests")
    text = open(README).read()
    section = text[text.index("## From Python"):]
    block = section[section.index("```python\n>>> ") + len("```python\n"):]
    block = block[:block.index("```")]
    test = doctest.DocTestParser().get_doctest(block, {}, "README", README, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 8
