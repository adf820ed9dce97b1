"""One word for one thing: each catalog uses its glossary's term (docs/translating.md) and none of the rejected."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from present.i18n import LOCALE_DIR
from web.page import ui_strings

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = {"nb": 2, "es": 3}  # the glossary's column of each language
# Names: limited by Discord's rules (commands, options, choices) or the players' own boards (territories).
NAMES = {"territory", "territory-short", "continent", "command-name", "option-name", "choice-name"}
# English phrases where a concept's word means something else, left out before looking for the concept.
OTHER_SENSES = {
    "card": r"wild cards?|card sets?",                   # a joker / comodín; a set is its own concept
    "set": r"set of settings|set-up",
    "placing": r"first place|no place|average placement",  # a rank, a seat at a table, a standing
    "round": r"round robin",
    "turn": r"in turn",                                  # one after the other
    "seat": r"seats at most|table seats|seat an ai",     # the verb: a game has room for
}
# What a message shows that is not its words: placeholders, commands, code, quoted names, markup.
NOT_WORDS = re.compile(r"\{[^}]*\}|</[^>]*>|`[^`]*`|“[^”]*”|«[^»]*»|<[^>]*>")


@dataclass(frozen=True)
class Term:
    concept: str
    english: tuple[str, ...]
    forms: dict[str, tuple[str, ...]]
    rejected: dict[str, tuple[str, ...]]


def glossary() -> list[Term]:
    text = (ROOT / "docs" / "translating.md").read_text(encoding="utf-8")
    table = text[text.index("| Concept | English |"):].split("\n\n", 1)[0].splitlines()[2:]
    terms = []
    for row in table:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        rejected: dict[str, tuple[str, ...]] = {}
        for part in filter(None, (p.strip() for p in cells[4].split(";"))):
            language, words = part.split(":", 1)
            rejected[language.strip()] = tuple(w.strip() for w in words.split(","))
        terms.append(Term(cells[0], _split(cells[1]),
                          {lang: _split(cells[column]) for lang, column in LANGUAGES.items()}, rejected))
    return terms


def _split(cell: str) -> tuple[str, ...]:
    return tuple(w.strip().rstrip("-") for w in cell.split(",") if w.strip())


def translations(language: str) -> list[tuple[str | None, str, str]]:
    """(context, English, translation) for every form of every message of a language's catalog."""
    with (LOCALE_DIR / language / "LC_MESSAGES" / "risk.po").open("rb") as f:
        catalog = read_po(f, locale=language)
    out = []
    for m in catalog:
        if not m.id:
            continue
        ids = (m.id,) if isinstance(m.id, str) else tuple(m.id)
        strings = (m.string,) if isinstance(m.string, str) else tuple(m.string)
        out += [(m.context, ids[min(i, len(ids) - 1)], s) for i, s in enumerate(strings)]
    return out


def whole(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)", re.IGNORECASE)


TERMS = glossary()


def test_the_glossary_has_every_concept_players_meet():
    concepts = {t.concept for t in TERMS}
    assert concepts >= {"army", "territory", "continent", "card", "set (of cards)", "trade (a set)", "reinforcement",
                        "placing", "attack", "blitz", "move in", "fortify", "mission", "capital", "neutral", "turn",
                        "round", "substitute", "vote", "dice commitment"}
    assert all(t.english and all(t.forms.values()) for t in TERMS)
    rejected = {(lang, w.lower()) for t in TERMS for lang, words in t.rejected.items() for w in words}
    assert {("nb", "forsterk"), ("nb", "armeer"), ("nb", "ki"), ("nb", "innbytter"), ("es", "juego")} <= rejected


@pytest.mark.parametrize("language", sorted(LANGUAGES))
@pytest.mark.parametrize("term", TERMS, ids=[t.concept for t in TERMS])
def test_a_catalog_names_each_concept_with_its_glossary_term(language: str, term: Term):
    english = whole(term.english)
    other = re.compile(OTHER_SENSES[term.concept.split()[0]], re.IGNORECASE) \
        if term.concept.split()[0] in OTHER_SENSES else None
    forms = [f.lower() for f in term.forms[language]]
    wrong = []
    for context, message, text in translations(language):
        if context in NAMES:
            continue
        words = NOT_WORDS.sub(" ", message)
        if other is not None:
            words = other.sub(" ", words)
        if english.search(words) and not any(f in text.lower() for f in forms):
            wrong.append(f"{message!r} → {text!r}")
    assert not wrong, f"{term.concept} is {' / '.join(term.forms[language])} in {language}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_a_catalog_uses_no_rejected_word(language: str):
    rejected = {w: t.concept for t in TERMS for w in t.rejected.get(language, ())}
    pattern = whole(tuple(rejected))
    found = [f"{m.group(0)!r} ({rejected.get(m.group(0), rejected.get(m.group(0).lower(), '?'))}) in {text!r}"
             for _context, _message, text in translations(language)
             for m in [pattern.search(NOT_WORDS.sub(" ", text))] if m]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_live_boards_words_are_the_catalogs_and_the_glossarys(language: str):
    """The board's script shows only the words the page gives it, and those come from the catalog."""
    words = ui_strings(language)
    translated = {message: text for _context, message, text in translations(language) if _context is None}
    from web import page

    source = Path(page.__file__).read_text(encoding="utf-8")
    english = dict(re.findall(r'"(\w+)": _\("((?:[^"\\]|\\.)*)", lang\)', source))
    assert set(english) == set(words)
    for key, text in words.items():
        assert text == translated[english[key]], key
    blitz = next(t for t in TERMS if t.concept == "blitz")
    assert any(f.lower() in words["blitz"].lower() for f in blitz.forms[language])
    assert any(f.lower() in words["stop_at"].lower() for f in blitz.forms[language])
    assert not whole(("blitz",)).search(words["stop_at"] + words["blitz"])
