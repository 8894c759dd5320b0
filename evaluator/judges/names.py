"""What a name is made of, for the offline matcher's Video SimpleQA grading: the titles,
kinds and small words around a name ("Mount", "Museum", "the"), and whether two names
differ where they tell things apart ("Pierre Curie" for Marie Curie) or are one name
spelled two ways ("Antonio Gaudí" for Antoni Gaudí).
"""

from __future__ import annotations

import difflib

# what may stand before a name without being part of it: "Mount Kilimanjaro" is Kilimanjaro
TITLES = frozenset("mount lake river saint cape sir doctor president king queen fort port emperor empress pope "
                   "general admiral captain prince princess lord lady mr mrs ms professor prof".split())
# what a place or a body is, written after its name: "the Louvre Museum" is the Louvre
KINDS = frozenset("museum cathedral palace castle basilica church temple mosque stadium arena building airport "
                  "station university college hotel hospital company band orchestra se ag inc ltd plc gmbh corp "
                  "corporation llc nv state province county city region prefecture district".split())
# what kind of thing the gold is, which a short answer may leave off: "Andromeda" is the
# Andromeda Galaxy, "Ford" the Ford Motor Company, "Wimbledon" the Wimbledon Championships
GENERIC = KINDS | frozenset("galaxy nebula championships championship tournament motor motors group river lake "
                            "national park island islands mountains range falls desert canyon bay strait valley "
                            "bridge tower square ocean sea".split())
# particles that carry a name on ("Santa Maria della Salute" is not Santa María)
NAME_PARTICLES = r"(?:della|delle|degli|del|dei|de|di|da|do|dos|das|du|des|van|von|der|den|la|le|y)"

# a phase of the gold, which keeps it ("Late Cretaceous" is in the Cretaceous)
PHASES = frozenset("late early middle mid upper lower".split())

# words that may open an answer before the gold without being part of its name
OPENERS = frozenset("the it its it's this that these answer yes in at on by from of a an is was my our his her "
                    "their answer: final".split())


def swapped(gold_words: list[str], said_words: list[str]) -> bool:
    """Both keep words of their own (not titles, kinds or small words), as many each, and no
    word of one is spelled like, or shortens, a word of the other ("Antonio" / Antoni,
    "Defense" / Defence, "Cat" / Category, "W." / William: the same name written another way)."""
    ignore = TITLES | GENERIC | OPENERS | {"and", "of"}
    own_gold = [x for x in gold_words if x not in said_words and x not in ignore]
    own_said = [x for x in said_words if x not in gold_words and x not in ignore]
    return bool(own_gold) and len(own_gold) == len(own_said) and not any(
        a.startswith(b) or b.startswith(a) or spelled_alike(a, b) for a in own_gold for b in own_said)


def spelled_alike(a: str, b: str) -> bool:
    """difflib's ratio() of the two is at least 0.6. Its cheap upper bound (2 x the shorter
    length / both lengths, as real_quick_ratio computes it) settles most pairs without
    building a SequenceMatcher."""
    if len(a) + len(b) and 2.0 * min(len(a), len(b)) / (len(a) + len(b)) < 0.6:
        return False
    return difflib.SequenceMatcher(None, a, b).ratio() >= 0.6


__all__ = ["GENERIC", "KINDS", "NAME_PARTICLES", "OPENERS", "PHASES", "TITLES", "spelled_alike", "swapped"]
