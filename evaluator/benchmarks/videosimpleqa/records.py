"""Video SimpleQA's typed records (a public Question, its hidden sub-questions and
Answer), categories and call ids.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.records import SCHEMA_VERSION, from_dict

NAME = "videosimpleqa"
TITLE = "Video SimpleQA"
PAPER_SIZE = 1504  # the paper's size in demo() units: items; for synthetic suites
# Every answer is graded by a judge, which is shown the video's frames when it can see them,
# as the paper's grader is (evaluator/benchmarks/hooks.py).
JUDGE_TASK = "simpleqa"
JUDGE_SEES_FRAMES = True

RELEASE_FILE = "VideoSimpleQA.json"
CATEGORY_FILE = "category_mapping.json"
ECE_BINS = 10

# Primary categories (Table 2 columns) and their paper sizes.
PRIMARY = {"ENG": "Engineering", "NAT": "Nature", "SCI": "Science", "SAC": "Society & Culture"}
PAPER_CATEGORIES = {"ENG": 517, "NAT": 484, "SCI": 105, "SAC": 398}
PAPER_HOPS = {2: 928, 3: 469, 4: 107}
PAPER_VIDEOS = 1079

# Secondary and tertiary category names, so a category mapping may label
# items at any level; the leaderboard breaks down by the primary category.
_FINER = {
    "NAT": "Geology & Landscapes; Fossils; Landscapes; Rocks & Minerals; Geomorphology; Volcanic Features; "
           "Coastal Landforms; Flora & Fauna; Animalia; Marine Organisms; Plantae; Fungi; Microorganisms; "
           "Endangered Species; Meteorology; Weather; Climate; Atmospheric Phenomena; Forecasting",
    "ENG": "Civil & Architecture; Architecture; Civil; Structural Engineering; Urban Planning; "
           "Mechanical & Electrical; Mechanical; Electrical; Mechatronics; Aerospace Engineering; "
           "Chemical & Process; Chemical; Process; Biochemical Engineering; Polymer Engineering; "
           "Environmental & Geophysical; Environmental; Geophysical; Hydrology; Climate Engineering",
    "SCI": "Physical sciences; Physics; Chemistry; Astronomy; Earth sciences; Materials Science; "
           "Atmospheric Science; Geophysics; Life sciences; Biology; Medicine; Ecology; Genetics; "
           "Neuroscience; Formal sciences; Mathematics; Computer Science; Statistics; Logic; "
           "Applied sciences; Technology; Robotics; Agricultural Science; Data Science",
    "SAC": "Arts & Recreation; Art; Literature; Music; Entertainment; Sports; Dance; Theatre; Film; "
           "Photography; Games; Beliefs & Institutions; Belief; Religion; Philosophy; Ethics; Politics; "
           "Flags; Government; Law; People; History & Heritage; History; Events; Places; Archaeology; "
           "Heritage Sites; Genealogy; Language & Material Culture; Language; Objects; Food; Clothing; "
           "Transportation; Instruments; Tools",
}


def category_key(label: str) -> str:
    """Case, spacing and '&' vs 'and' do not matter when naming a category."""
    return " ".join(label.casefold().replace("&", " and ").split())


CATEGORY_OF = {category_key(name): abbrev
                for abbrev, names in _FINER.items() for name in names.split("; ")}


CATEGORY_OF.update({category_key(full): abbrev for abbrev, full in PRIMARY.items()})


CATEGORY_OF.update({category_key(abbrev): abbrev for abbrev in PRIMARY})


@dataclass
class Question:
    id: str
    video: str  # opaque id; never the release's date (its Commons page names the answer)
    question: str  # the multi-hop question; "" when the release item has none (not scored)
    hops: int  # number of sub-questions in the release item
    category: str | None = None  # ENG / NAT / SCI / SAC, when the release has labels
    schema_version: int = SCHEMA_VERSION


@dataclass
class SubQuestion:
    question: str
    answer: str


@dataclass
class Answer:
    id: str
    answer: str  # gold of the multi-hop question ("" when the item is not scored)
    sub_questions: list[SubQuestion]  # hop 1..k in order; texts reveal earlier answers
    source: str | None = None  # the release's video key (its date): private, it names the answer
    release_index: int | None = None  # the item's index in the release's JSON list: maintainers only
    schema_version: int = SCHEMA_VERSION

    @classmethod
    def from_json(cls, data: dict) -> "Answer":
        answer = from_dict(cls, data)
        answer.sub_questions = [from_dict(SubQuestion, s) for s in data.get("sub_questions", [])]
        return answer


def call_id(item: str) -> str:
    return f"{NAME}/{item}"


def hop_call_id(item: str, hop: int) -> str:
    """The worker-only call of sub-question `hop` (1-based)."""
    return f"{NAME}/{item}/hop{hop}"


def usable(sub: SubQuestion) -> bool:
    return bool(sub.question and sub.answer)
