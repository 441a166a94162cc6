"""The README and the pages under docs/ hold together: every link inside the repository
leads to a file (and heading) that exists, and the README names the addresses `make run`
prints."""

import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "examples" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def prose(page: Path) -> Iterator[tuple[int, str]]:
    """The page's numbered lines outside code blocks (a `#` there is a comment)."""
    in_code = False
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code:
            yield number, line


def heading_anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped,
    spaces as hyphens."""
    titles = (line.lstrip("#").strip().lower() for _, line in prose(page) if line[:1] == "#")
    return {re.sub(r"[^\w\- ]", "", title).replace(" ", "-") for title in titles}


def test_every_link_inside_the_repository_leads_somewhere():
    broken = []
    for page in PAGES:
        for number, line in prose(page):
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue  # an address outside the repository
                path, _, anchor = target.partition("#")
                linked = (page.parent / path).resolve() if path else page
                if not linked.exists() or (anchor and anchor not in heading_anchors(linked)):
                    broken.append(f"{page.relative_to(ROOT)}:{number}: {target}")
    assert not broken, broken


def test_the_readme_lists_the_addresses_make_run_prints():
    stack = (ROOT / "scripts" / "stack.py").read_text()
    banner = set(re.findall(r"http://127\.0\.0\.1:\{port\}(/[^\s\\]*)", stack))
    readme = set(
        re.findall(r"http://127\.0\.0\.1:8000(/[^\s)]*)", (ROOT / "README.md").read_text())
    )
    assert "/" in banner  # the play page
    assert banner == readme
