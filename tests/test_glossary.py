"""The catalogues keep to their glossaries (locale/<lang>/GLOSSARY.md): a game term is
one word in each language, everywhere, and the words the glossaries reject stay out.

Why: a player who reads "талон" in his table and "шпил" on the match page for the
same pile of cards must guess whether they are one thing; a wrong word found once
(he "הפסקה" for abort, ms "lepas" for pass) must not come back with the next string.
Each term is checked by a stem that every form of the chosen word shares, in every
entry whose msgid uses the English term (outside what players type).
"""

from __future__ import annotations

import re

import pytest

from tests.test_translations import LANGUAGES, ROOT, _without_typed, catalogue

# English term (a regex on the msgid) -> the chosen word's stems, per language.
TERMS = {
    r"\bstock\b": {"mk": ["талон"], "he": ["קופה"], "lt": ["podėl"], "mr": ["गड्डी"], "ms": ["stok"]},
    r"\bpile\b": {"mk": ["куп"], "he": ["ערימה"], "lt": ["krūv"], "mr": ["ढीग", "ढिग"], "ms": ["timbunan"]},
    r"\bdeck\b": {"mk": ["шпил"], "he": ["חפיס"], "lt": ["kalad"], "mr": ["डेक"], "ms": ["dek"]},
    r"\b[Ss]itter": {
        "mk": ["советник"],
        "he": ["יושב בחוץ"],
        "lt": ["patarėj"],
        "mr": ["बाहेर बसले"],
        "ms": ["penasihat"],
    },
    r"\b[Cc]aptain": {"mk": ["капетан"], "he": ["קפטן"], "lt": ["kapiton"], "mr": ["कर्णधार"], "ms": ["kapten"]},
    r"\b[Bb]ox\b": {"mk": ["кутија"], "he": ["קופסה"], "lt": ["dėž"], "mr": ["बॉक्स"], "ms": ["kotak"]},
    r"\b[Hh]ands?\b(?! over)": {
        "mk": ["рак", "рац"],
        "he": ["סיבוב"],
        "lt": ["padalijim"],
        "mr": ["डाव"],
        "ms": ["pusingan"],
    },
    r"\b[Uu]ndercut": {
        "mk": ["потсе"],
        "he": ["אנדרקאט"],
        "lt": ["pakir"],
        "mr": ["अंडरकट"],
        "ms": ["potong", "motong"],
    },
    r"\bknock": {
        "mk": ["троп"],
        "he": ["דופק", "דפוק", "דפיק"],  # the noun: "דפיקה"
        "lt": ["beld", "bels"],  # "pasibelsk" (knock!), "belstis"
        "mr": ["नॉक"],
        "ms": ["ketuk", "etuk"],
    },
    r"\bsalt\b": {"mk": ["сол"], "he": ["מלח"], "lt": ["drusk"], "mr": ["सॉल्ट"], "ms": ["salt"]},
    r"\bgin rummy\b": {
        "mk": ["џин рами"],
        "he": ["ג'ין רמי"],
        "lt": ["džin ram"],
        "mr": ["जिन रमी"],
        "ms": ["gin rummy"],
    },
    r"\b[Aa]bort": {
        "mk": ["прекин"],
        "he": ["ביטול", "בוטל", "ביטל"],
        "lt": ["nutrauk"],
        "mr": ["रद्द"],
        "ms": ["batal"],
    },
    r"\b[Rr]esign": {
        "mk": ["предад", "предај"],
        "he": ["פרש", "פרוש"],
        "lt": ["pasid"],
        "mr": ["माघार"],
        "ms": ["menyerah"],
    },
    r"\b[Mm]atch(es)?\b": {"mk": ["парти"], "he": ["משחק"], "lt": ["partij"], "mr": ["सामन"], "ms": ["perlawanan"]},
}
# Where a msgid uses the English word in another sense than the term's.
OTHER_SENSE = {
    "This group follows #%(code)s: tables and results, never a hand.": "the cards a player holds",
    (
        'To verify by hand: the commitment is sha256("salt:deck"), e.g. <code>echo -n "SALT:DECK" | sha256sum</code>.'
    ): "by hand: oneself, not by a page",
    "Checked in your browser: the deck and salt match the commitment.": "match: agree with",
    "Does not match: this deck is not the one committed to at the deal.": "match: agree with",
}
# Words a reading by speakers' standards rejected: each stays out of its catalogue.
REJECTED = {
    "mk": [r"седач", r"прескок", r"палуба"],
    "he": [r"הפסקה(?!\.)"],  # a break; "STOP להפסקה." (to stop the texts) is another word's use
    "lt": [r"Rummy", r"Džinas R", r"sėdint"],
    "ms": [r"\blepas\b", r"duduk luar", r"\bgaram\b", r"\bharam"],
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_a_glossary_with_every_term(language):
    glossary = (ROOT / "locale" / language / "GLOSSARY.md").read_text(encoding="utf-8")
    terms = re.findall(r"^\| ([^|*]+?) \| \*\*", glossary, re.MULTILINE)
    wanted = "gin, gin rummy, box, captain, sitter, hand (one deal), match, knock, undercut, deadwood, meld, set, run, "
    wanted += "stock, discard pile, upcard, pass, take, draw, discard, lay off, suggestion / advise, deck, commitment, "
    wanted += "salt, deadline, turn, score, target, resign, rematch, lobby, away / vacation, quiet hours, report, "
    wanted += "computer player"
    assert set(wanted.split(", ")) <= set(terms), set(wanted.split(", ")) - set(terms)


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_term_is_the_glossarys_word_wherever_it_is_used(language):
    mismatched = []
    for entry in catalogue(language)[1]:
        if entry.msgid in OTHER_SENSE:
            continue
        english = _without_typed(entry.msgid)
        for term, stems in TERMS.items():
            if re.search(term, english):
                for text in entry.msgstr:
                    if not any(stem.lower() in text.lower() for stem in stems[language]):
                        mismatched.append(f"{term}: {entry.msgid!r} -> {text!r}")
    assert not mismatched, f"{language}: not the glossary's word:\n" + "\n".join(mismatched)


@pytest.mark.parametrize("language", sorted(REJECTED))
def test_rejected_words_stay_out(language):
    found = [
        (word, text)
        for entry in catalogue(language)[1]
        for text in entry.msgstr
        for word in REJECTED[language]
        if re.search(word, text)
    ]
    assert not found, f"{language}: {found}"
