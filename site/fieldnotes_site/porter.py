"""The Porter stemmer exactly as the site's search page runs it (Sphinx's ``js_porter_stemmer``, Martin
Porter's JavaScript version of his revised algorithm: ``bli -> ble`` and ``logi -> log`` in step 2).

Snowball's "porter" is the 1980 original and differs on words such as "possibly" and "topology"; an index
stemmed with it would file those under keys the browser never asks for. The index (fieldnotes_site.search)
stems with this port, so both sides agree on every word; a browser test compares them word by word.
"""

from __future__ import annotations

import re

_C = "[^aeiou]"
_V = "[aeiouy]"
_CS = _C + "[^aeiouy]*"  # consonant sequence
_VS = _V + "[aeiou]*"  # vowel sequence
_MGR0 = re.compile("^(" + _CS + ")?" + _VS + _CS)  # m > 0
_MEQ1 = re.compile("^(" + _CS + ")?" + _VS + _CS + "(" + _VS + ")?$")  # m = 1
_MGR1 = re.compile("^(" + _CS + ")?" + _VS + _CS + _VS + _CS)  # m > 1
_S_V = re.compile("^(" + _CS + ")?" + _V)  # vowel in stem
_CVC = re.compile("^" + _CS + _V + "[^aeiouwxy]$")

_STEP2 = {
    "ational": "ate",
    "tional": "tion",
    "enci": "ence",
    "anci": "ance",
    "izer": "ize",
    "bli": "ble",
    "alli": "al",
    "entli": "ent",
    "eli": "e",
    "ousli": "ous",
    "ization": "ize",
    "ation": "ate",
    "ator": "ate",
    "alism": "al",
    "iveness": "ive",
    "fulness": "ful",
    "ousness": "ous",
    "aliti": "al",
    "iviti": "ive",
    "biliti": "ble",
    "logi": "log",
}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_STEP2_RE = re.compile(r"^(.+?)(" + "|".join(_STEP2) + ")$")
_STEP3_RE = re.compile(r"^(.+?)(" + "|".join(_STEP3) + ")$")
_STEP4_RE = re.compile(r"^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)$")


def stem(word: str) -> str:
    """The stem the search page computes for ``word`` (already lower-cased, as the page does)."""
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__}")
    w = word
    if len(w) < 3:
        return w
    first_y = w[0] == "y"
    if first_y:
        w = "Y" + w[1:]
    # step 1a
    if m := re.match(r"^(.+?)(ss|i)es$", w):
        w = m[1] + m[2]
    elif m := re.match(r"^(.+?)([^s])s$", w):
        w = m[1] + m[2]
    # step 1b
    if m := re.match(r"^(.+?)eed$", w):
        if _MGR0.search(m[1]):
            w = w[:-1]
    elif (m := re.match(r"^(.+?)(ed|ing)$", w)) and _S_V.search(m[1]):
        w = m[1]
        if re.search(r"(at|bl|iz)$", w):
            w += "e"
        elif re.search(r"([^aeiouylsz])\1$", w):
            w = w[:-1]
        elif _CVC.search(w):
            w += "e"
    # step 1c
    if (m := re.match(r"^(.+?)y$", w)) and _S_V.search(m[1]):
        w = m[1] + "i"
    # step 2
    if (m := _STEP2_RE.match(w)) and _MGR0.search(m[1]):
        w = m[1] + _STEP2[m[2]]
    # step 3
    if (m := _STEP3_RE.match(w)) and _MGR0.search(m[1]):
        w = m[1] + _STEP3[m[2]]
    # step 4
    if m := _STEP4_RE.match(w):
        if _MGR1.search(m[1]):
            w = m[1]
    elif (m := re.match(r"^(.+?)(s|t)(ion)$", w)) and _MGR1.search(m[1] + m[2]):
        w = m[1] + m[2]
    # step 5
    if m := re.match(r"^(.+?)e$", w):
        if _MGR1.search(m[1]) or (_MEQ1.search(m[1]) and not _CVC.search(m[1])):
            w = m[1]
    if w.endswith("ll") and _MGR1.search(w):
        w = w[:-1]
    if first_y:
        w = "y" + w[1:]
    return w
