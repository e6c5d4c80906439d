"""The rule of a description's shape: a sentence a reader can judge relevance from, not a table of
contents, a list of links, a heading, a metadata line or a sentence cut off.

Plain string tests with no model: lint runs in the commit hook. Each test looks for a shape that
sentences do not take, so that a one- or two-sentence description passes with or without its final
stop; the thresholds and what they were calibrated on are in adr-bf27127ab433.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from docir.services.lint.registry import Hit, Subject, rule

ADVICE = "say in a sentence what the document decides or explains"
CLIP_MARGIN = 15  # characters: a text clipped at a word boundary lost less than its last word

_CODE_RE = re.compile(r"`+[^`]*`+")
_LINK_RE = re.compile(r"!?\[([^\[\]]*)\]\([^()\s]*(?:\([^()]*\)[^()\s]*)*(?:\s+\"[^\"]*\")?\)")
_URL_RE = re.compile(r"<?\b(?:https?|ftp)://[^\s<>]+>?")
# "Status: accepted", "**Parent Requirement**: REQ-1": a label of a few words, a colon, a short value.
_FIELD_RE = re.compile(r"(\*\*|__)?([A-Za-z][\w()/' -]*?)(?:\*\*|__)?\s*:(?:\*\*|__)?(?!//)\s*(.*)")
# A flattened list: it opens with a bullet or "1." and another follows ("* Maven * Gradle * Ant").
_BULLET_RE = re.compile(r"(?:^|\s)(?:[-*+•]|\d{1,2}[.)])\s+(?=\S)")
# Plain string work where a regular expression is not needed: compiling one costs the commit hook.
SEPARATORS = str.maketrans(dict.fromkeys(";·|•", "\n"))
CLOSERS = "\"'”’)]`*_"
_SENTENCE_END_RE = re.compile(r"[a-z0-9)`][.!?][\"'”’)\]]*\s+[\"'(`]?[A-Z]")
_WORD_RE = re.compile(r"[^\W\d_][\w'’.-]*")
_PART_RE = re.compile(r"\s[-–—:]\s|:\s")  # "EOF - Prepare for ...": each part may open with a verb

# Words a sentence cut off ends on: an article, a preposition, a conjunction. Not "in", "on", "up",
# "out", "off", "this" or "is", which end sentences ("Users must log in", "turn lint off").
DANGLING = frozenset("""
    a an the and or but nor of to with without for from into onto by via than that which whose its their
    our your because if whether at per including versus vs between among
""".split())
# Field names a metadata line starts with, in any case; another label counts when it is bold.
FIELDS = frozenset("""
    status state date created updated author authors owner owners deciders decision-makers consulted
    informed tags category type id version ticket issue jira parent supersedes reviewers approvers
""".split())
# Words that stay lowercase in Title Case ("Alpha -> Beta Graduation", "Choice of Database").
SMALL_WORDS = frozenset("a an the and or but nor of to in on at by for from with into onto via vs per as over".split())
AUXILIARIES = frozenset("""
    is are was were be been being am isn't aren't wasn't weren't has have had hasn't haven't do does did
    don't doesn't didn't can cannot can't could couldn't will won't would wouldn't shall should shouldn't
    may might must mustn't need needs let lets we i you they he she
""".split())
# The verbs design documents are written with, in their base form; a word that is one of these, or its
# -s, -es, -ed or -d form, makes a phrase a sentence (an imperative "Use PostgreSQL for orders" included).
VERBS = frozenset("""
    abort accept access activate adapt add adjust adopt aggregate alias align allocate allow amend annotate
    announce answer append apply approve archive ask assert assign attach authenticate authorize automate
    avoid backfill backport batch become begin bind block boost bring broadcast build bump bundle bypass
    cache calculate calibrate call cancel cap capture change check choose clarify classify clean clear close
    collapse collect combine commit compare compile compose compress compute configure confirm connect
    consolidate constrain construct consult consume contain continue convert copy count create cut
    deactivate decide declare decouple decrease decrypt deduplicate defer define delay delegate delete
    deliver deny depend deploy deprecate derive describe detect determine disable disallow discard discover
    dispatch display distribute document drop embed emit enable encode encrypt enforce enhance ensure
    establish evaluate evict exclude execute expand expect expire explain export expose extend extract fail
    fetch fill filter find fire fix flag follow forbid force forward freeze generate get give go grant group
    grow guarantee handle harden help hide hold identify ignore implement import improve include increase
    increment index inherit initialize inject inline insert inspect install integrate introduce invalidate
    invoke isolate join keep know label launch lead leave limit link list load lock log look lower maintain
    make manage map mark match maximize measure merge migrate minimize mirror modify monitor mount move name
    normalize note notify obtain offer omit open optimize order organize override own pass pause perform
    permit persist pick pin place plan poll populate prefer prepare prepend preserve prevent print
    prioritize proceed process produce prohibit propose protect prove provide prune publish pull purge push
    put query queue raise rank reach read rebuild receive recommend reconcile record recover reduce
    refactor refresh refund refuse register reject release reload rely remove rename render reorder repeat
    replace report represent request require reserve reset resolve restart restore restrict resume retain
    retire retrieve retry return reuse reveal revert review revoke rewrite rotate route run sanitize save
    say scale scan schedule secure see select send separate serialize serve set settle share ship show
    shrink sign simplify skip solve sort specify split standardize start state stay stop store stream
    submit subscribe substitute succeed suggest supersede support suppress suspend swap switch sync take
    tell terminate test throttle throw track transfer transform translate transmit treat trigger trim
    truncate try turn undo unify unlock unpack update upgrade upload use utilize validate verify wait walk
    warn watch withdraw work wrap write yield
""".split())
IRREGULAR = frozenset("""
    built chose chosen did done found gave given got held kept knew led left made met ran read said saw
    seen sent set shown split stood taken told took went written wrote
""".split())


@rule("DOC025", "description-not-a-sentence", "warning",
      "The description is a table of contents, a list, links, a heading or metadata, or is cut off mid-sentence.",
      "A reader who sees only a document's skeleton (context, search, query) decides from its description "
      "whether to read the body. A table of contents ('Overview; Motivation; Specification'), a flattened "
      "list ('* Maven * Gradle * Ant'), two or more links with little else, a heading ('# Context', "
      "'Alpha -> Beta Graduation'), a metadata line ('Status: accepted') or a sentence cut off (ending in "
      "':', ',', '...', a dangling 'and' or 'the', or without a stop at the schema's max_length) tells them "
      "nothing. Write one or two sentences that say what the document decides or explains, in the words a "
      "searcher would use. A sentence without a final stop, one inline link and inline code are fine. The "
      "tests are plain string checks; a store whose descriptions follow another convention turns the rule "
      "off in docs-schema.yaml:\n  lint:\n    severity: {DOC025: off}",
      bad="description: Context; Decision Drivers; Considered Options; Decision Outcome",
      good="description: Orders are stored in PostgreSQL, chosen over MongoDB for its transactions.")
def description_not_a_sentence(s: Subject) -> Iterator[Hit]:
    if s.parsed.in_place:  # derived from the record's own sentences, where its format has no description
        return
    written = s.doc.meta.get("description")
    problem = (f"description is a YAML list; {ADVICE}" if isinstance(written, list)
               else description_problem(s.doc.description, s.schema.lint.description_max))
    if problem:
        yield s.path, s.at("description"), 1, problem


def description_problem(description: str, max_length: int) -> str | None:
    """What makes `description` no sentence a reader can judge, as the finding's message, or None when it
    is one. The first shape found is named: links, a list, metadata, a heading, then a cut-off end."""
    text = " ".join(description.split())
    if not text:
        return None
    lines = [line.strip() for line in description.strip().splitlines() if line.strip()]
    return (_links(text) or _listed(text, lines) or _metadata(text) or _heading(text)
            or _cut(text, max_length))


def _links(text: str) -> str | None:
    """Two or more links whose words outnumber the rest's: a list of links, not a sentence with one."""
    links = _LINK_RE.findall(text)
    urls = _URL_RE.findall(_LINK_RE.sub(" ", text))
    if len(links) + len(urls) < 2:
        return None
    linked = sum(max(1, len(_words(label))) for label in links) + len(urls)
    rest = len(_words(_URL_RE.sub(" ", _LINK_RE.sub(" ", text))))
    if rest > max(2, linked):
        return None
    return f"description is a list of links; {ADVICE}, and leave the links to the body"


def _listed(text: str, lines: list[str]) -> str | None:
    """A flattened bullet list, or several separated fragments with no verb among them."""
    bullets = _BULLET_RE.findall(_CODE_RE.sub("code", text))
    if len(bullets) >= 2 and _BULLET_RE.match(text) or text.count("•") >= 2:
        return f"description reads as a list; {ADVICE}"
    plain = _plain(text)
    parts = [p.strip() for p in "\n".join(_plain(line) for line in lines).translate(SEPARATORS).split("\n")
             if p.strip()]
    if len(parts) < 3:
        # "Overview, Motivation, Specification and Rationale": only capitalised names, none a sentence.
        parts = [p.strip() for p in re.split(r",|\band\b|\bor\b", plain) if p.strip()]
        if len(parts) < 3 or _ends_sentence(plain) or not all(_capitalised(_words(p)) for p in parts):
            return None
    if _has_verb(_words(plain)) or any(len(_words(p)) > 5 for p in parts):
        return None
    if all(_capitalised(_words(p)) for p in parts):
        return f"description reads as a table of contents; {ADVICE}"
    return f"description reads as a list; {ADVICE}"


def _metadata(text: str) -> str | None:
    """A field and its value ("Status: accepted", "**Parent Requirement**: REQ-1", "* Deciders: Ann")."""
    item = _BULLET_RE.match(text)
    field = _FIELD_RE.fullmatch(text[item.end():] if item else text)
    if field is None:
        return None
    bold, label, value = field.group(1), field.group(2).strip(), _plain(field.group(3))
    named, words = _words(label), _words(value)
    known = bold is not None or label.lower() in FIELDS or label.lower().startswith("technical story")
    # An unknown label before a phrase ("Kafka: topics per tenant") is a terse summary, not a field.
    if (len(named) > 3 or not (known or label[:1].isupper()) or _predicate(named)
            or any(w.lower() in SMALL_WORDS for w in named) or len(words) > (6 if known else 2) or _is_clause(words)):
        return None
    return f"description reads as a metadata field ({label}: ...); {ADVICE}"


def _heading(text: str) -> str | None:
    """A Markdown heading, or a short Title Case phrase with no verb and no closing stop."""
    if text.startswith("#") and text.lstrip("#")[:1] in ("", " ") and len(text) - len(text.lstrip("#")) <= 6:
        return f"description is a Markdown heading; {ADVICE}"
    plain = _plain(text)
    words = _words(plain)
    if (not words or len(words) > 6 or _ends_sentence(plain) or not _capitalised(words)
            or any(_predicate(_words(part)) for part in _PART_RE.split(plain))):
        return None
    return f"description reads as a heading; {ADVICE}"


def _cut(text: str, max_length: int) -> str | None:
    """A sentence that stops before its end: at a colon, comma or ellipsis, on a dangling word, or without
    a stop where a limit of `max_length` characters would have clipped it."""
    finish = "finish the sentence, or end the description at the last whole one"
    if text.endswith(("...", "…", "[...]", "[…]")):
        return f"description ends in an ellipsis, cut off mid-sentence; {finish}"
    if text[-1] in ":,;-–—(":
        return f"description ends with '{text[-1]}', cut off mid-sentence; {finish}"
    if _ends_sentence(text):
        return None
    last = text.split()[-1].lower()
    if last in DANGLING:
        return f"description ends on '{last}', cut off mid-sentence; {finish}"
    # Clipped at the limit, or a word short of it in prose whose other sentences end in a stop: a single
    # sentence near the limit without one is how some teams write (adr-bf27127ab433).
    near = max_length - CLIP_MARGIN <= len(text) < max_length and _SENTENCE_END_RE.search(text)
    if len(text) == max_length or near:
        return (f"description ends without a stop at {len(text)} of the {max_length} characters allowed, "
                f"as if clipped; {finish}")
    return None


def _plain(text: str) -> str:
    """Text as a reader sees it: a link's label without its target, no URLs, emphasis or code."""
    text = _CODE_RE.sub(" code ", text)
    text = _LINK_RE.sub(lambda m: m.group(1), text)
    return " ".join(_URL_RE.sub(" ", text).replace("**", "").replace("__", "").split())


def _ends_sentence(text: str) -> bool:
    """It ends in a stop, a question or exclamation mark, before any closing quote, bracket or emphasis."""
    return text.rstrip(CLOSERS)[-1:] in (".", "!", "?")


def _words(text: str) -> list[str]:
    return [w.rstrip(".'’-") for w in _WORD_RE.findall(text)]


def _capitalised(words: list[str]) -> bool:
    """Title Case: every word but the small ones starts with a capital (an acronym, a name or a number)."""
    return bool(words) and all(w[:1].isupper() for i, w in enumerate(words)
                               if i == 0 or w.lower() not in SMALL_WORDS)


def _has_verb(words: list[str]) -> bool:
    """Any of `words` is a verb (or one of its forms), an auxiliary or a subject pronoun."""
    return any(_verb_form(w.lower()) for w in words) or _predicate(words)


def _predicate(words: list[str]) -> bool:
    """`words` read as a sentence even in Title Case: they open with a verb ("Use PostgreSQL", "Optimize
    EOA EXTCODEHASH") or hold an auxiliary or a subject ("Why We Chose Kafka"). A verb further in is more
    often a noun in a heading ("Release Process", "Data Store") and does not count."""
    first = words[0].lower() if words else ""
    if _verb_form(first) or (len(first) > 5 and first.endswith(("ize", "izes", "ify", "ifies"))):
        return True
    return any(w.lower() in AUXILIARIES or w.lower() in IRREGULAR or w.lower().endswith("n't") for w in words)


def _is_clause(words: list[str]) -> bool:
    """A value that is a sentence of its own ("the cache is rebuilt", "use Postgres"), not a field's value:
    it has an auxiliary or a subject, or opens with a verb. A participle alone ("accepted") is a status."""
    lowered = [w.lower() for w in words]
    return any(w in AUXILIARIES or w.endswith("n't") for w in lowered) or (len(words) > 1 and lowered[0] in VERBS)


def _verb_form(word: str) -> bool:
    """`word` is one of VERBS or its -s, -es, -ies, -ed, -ied or -d form."""
    if word in VERBS:
        return True
    for suffix, base in (("ies", "y"), ("ied", "y"), ("es", ""), ("ed", ""), ("s", ""), ("d", "")):
        if word.endswith(suffix) and word[: len(word) - len(suffix)] + base in VERBS:
            return True
    # A doubled consonant before -ed ("dropped", "planned").
    return word.endswith("ed") and len(word) > 4 and word[-3] == word[-4] and word[:-3] in VERBS
