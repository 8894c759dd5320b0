"""ExpVid's demo data: synthetic items shaped like the release (task and level
shares, step lists, blanks), every answer-dependent arrangement drawn from the secret.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from evaluator import prompts
from evaluator.benchmarks.common import Secret
from evaluator.benchmarks.expvid.calls import numbered, question_block
from evaluator.benchmarks.expvid.records import DISCIPLINES, NAME, TASK_LEVEL, TASKS, Answer, Question
from evaluator.records import BenchmarkData, VideoSpec

# Task shares for sized synthetic suites. Within levels (level-1 shares
# fitted from Table 2, level 2 equal, level 3 0.49/0.51). Between levels the paper
# gives no counts (Fig. 5b is an image): we assume 50% / 40% / 10%.
LEVEL_SHARE = {1: 0.5, 2: 0.4, 3: 0.1}
TASK_SHARE = {"tool": 0.279, "material": 0.316, "quantity": 0.172, "operation": 0.233,
              "ordering": 0.25, "generation": 0.25, "verification": 0.25, "prediction": 0.25,
              "analysis": 0.49, "discovery": 0.51}
ITEMS_PER_SOURCE = 20  # 7,800 items over 390 experiments
MIN_PER_TASK = 2  # so that a tiny demo still has every task, with more than one answer

_TOOLS = ["micropipette", "serological pipette", "forceps", "scalpel", "spatula", "syringe",
          "inoculation loop", "cell scraper", "petri dish", "beaker", "hemocytometer", "weigh boat",
          "glass rod", "tweezers", "centrifuge tube", "dropper"]
_MATERIALS = ["phosphate-buffered saline", "70% ethanol", "agarose gel", "trypsin solution",
              "mineral oil", "liquid nitrogen", "culture medium", "4% paraformaldehyde",
              "sucrose solution", "distilled water", "brain slice", "zebrafish embryo",
              "bacterial culture", "copper foil", "epoxy resin", "soil sample"]
_QUANTITIES = [("volume", "is dispensed", "mL"), ("volume", "is pipetted", "µL"),
               ("temperature", "is set", "°C"), ("speed", "is set on the shaker", "rpm"),
               ("time", "is set on the timer", "min"), ("number of pellets", "is collected", "pellets")]
_OPERATIONS = ["aspirating the supernatant", "pipetting up and down", "inverting the tube",
               "tapping the tube", "sealing the plate", "loading the gel", "flaming the loop",
               "rinsing the slide", "cutting the tissue", "transferring the pellet",
               "attaching the needle", "inserting the probe", "stirring the mixture",
               "labelling the vial"]
_STEP_VERBS = ["Add", "Mix", "Transfer", "Incubate", "Centrifuge", "Rinse", "Weigh", "Heat",
               "Cool", "Label", "Seal", "Measure", "Filter", "Dilute", "Record", "Discard"]
_STEP_OBJECTS = ["the sample", "the buffer", "the cell pellet", "the tissue section",
                 "the reaction mixture", "the culture plate", "the membrane", "the supernatant",
                 "the slide", "the vial", "the embryo", "the electrode"]
FILLERS = ["2,4-D", "auxin", "calcium signalling", "apoptosis", "fluorescence", "photoredox catalysis",
            "room temperature", "72 hours", "higher yield", "memory consolidation",
            "phosphodiesterase", "zinc chelation", "dopamine", "biofilm formation", "gene expression",
            "neuronal activity", "cell migration", "oxidative stress"]
_STATEMENTS = {
    "analysis": {
        2: "The results showed that ____ markedly increased ____ in the treated samples.",
        3: "Compared with earlier studies, using ____ raised ____ because of ____.",
        4: "After ____ for ____, the treated group showed ____ relative to ____.",
    },
    "discovery": {
        2: "These findings suggest that ____ could serve as a tool for studying ____.",
        3: "The method links ____ to ____, with possible applications in ____.",
        4: "A limitation is that ____ depends on ____; future work could test ____ and ____.",
    },
}
_TITLE_TOPICS = ["Cell Culture", "Tissue Imaging", "Membrane Preparation", "Behavioral Testing",
                 "Protein Purification", "Embryo Injection", "Soil Sampling", "Photocatalysis"]


def _allocate(size: int) -> dict[str, int]:
    """Items per task: largest remainders of size x level share x task share, at
    least MIN_PER_TASK each."""
    exact = {t: size * LEVEL_SHARE[TASK_LEVEL[t]] * TASK_SHARE[t] for t in TASKS}
    counts = {t: int(v) for t, v in exact.items()}
    for t in sorted(TASKS, key=lambda t: counts[t] - exact[t])[: size - sum(counts.values())]:
        counts[t] += 1
    return {t: max(MIN_PER_TASK, c) for t, c in counts.items()}


def _spread(counts: dict[str, int]) -> list[str]:
    """Task of each item, interleaved so every source experiment gets a mix of tasks."""
    slots = [((i + 0.5) / n, TASKS.index(t), t) for t, n in counts.items() for i in range(n)]
    return [t for _, _, t in sorted(slots)]


def _mcq(golds: random.Random, truth: str, distractors: list[str]) -> tuple[list[str], str]:
    """Four options with the truth at a secret place (so "always A" is not a strategy)."""
    options = [truth, *distractors[:3]]
    golds.shuffle(options)
    return options, prompts.letters(4)[options.index(truth)]


def _quantity_options(texts: random.Random, golds: random.Random) -> tuple[str, list[str], str]:
    kind, verb, unit = texts.choice(_QUANTITIES)
    values = [f"{v} {unit}" for v in texts.sample(range(2, 60), 4)]  # one order of magnitude, as the paper's
    truth = values.pop(golds.randrange(4))
    options, label = _mcq(golds, truth, values)
    return f"What {kind} {verb} in this step?", options, label


@dataclass
class _Source:
    """One synthetic experiment: its discipline, title and full step list."""

    id: str
    discipline: str
    title: str
    steps: list[str]
    full_video: str | None = None


def _demo_source(texts: random.Random, index: int) -> _Source:
    # Distinct steps with no numbering in their text, so ordering options cannot be
    # sorted by reading alone.
    pairs = texts.sample([(v, o) for v in _STEP_VERBS for o in _STEP_OBJECTS], texts.randint(10, 16))
    steps = [f"{verb} {obj}" for verb, obj in pairs]
    discipline = DISCIPLINES[index % len(DISCIPLINES)]
    title = f"A {texts.choice(['Simple', 'Rapid', 'Robust', 'Low-Cost'])} Protocol for " \
            f"{texts.choice(_TITLE_TOPICS)} in {discipline}"
    return _Source(f"expvid-src-{index:04d}", discipline, title, steps)


def _demo_level1(texts: random.Random, golds: random.Random, task: str) -> tuple[str, list[str], str]:
    if task == "quantity":
        return _quantity_options(texts, golds)
    pool, stem = {
        "tool": (_TOOLS, "Which tool is used in this step of the experiment?"),
        "material": (_MATERIALS, "Which material is handled in this step of the experiment?"),
        "operation": (_OPERATIONS, "What is the researcher doing in this clip?"),
    }[task]
    shown = texts.sample(pool, 4)
    truth = shown.pop(golds.randrange(4))
    options, label = _mcq(golds, truth, shown)
    return stem, options, label


def _run(rng: random.Random, source: _Source, length: int) -> tuple[int, int]:
    """A contiguous run of `length` steps: 0-based start, end exclusive."""
    start = rng.randint(0, len(source.steps) - length)
    return start, start + length


def _demo_level2(texts: random.Random, golds: random.Random, task: str, source: _Source, q: Question,
                 a: Answer) -> float:
    """Fills a level-2 item's question and answer; returns its clip length in seconds.
    What the prompt shows comes from `texts`; what the answer is, from `golds`."""
    full = f"Full Step List:\n{numbered(source.steps)}"
    if task == "ordering":
        # The true order is a secret permutation, not the order of the full step list
        # that other items of the same experiment print (that would give it away).
        start, end = _run(texts, source, texts.randint(3, 4))
        shown = source.steps[start:end]
        orders: list[list[int]] = []
        while len(orders) < 4:
            order = golds.sample(range(len(shown)), len(shown))
            if order not in orders:
                orders.append(order)
        options = [numbered([shown[i] for i in order]) for order in orders]
        q.options, a.label = _mcq(golds, options[0], options[1:])
        q.labels = prompts.letters(4)
        q.question = question_block("In which order are the steps carried out in the video?")
    elif task == "generation":
        start, end = _run(golds, source, golds.randint(2, 4))
        a.steps = list(range(start + 1, end + 1))
        q.step_count = len(source.steps)
        q.question = question_block("Using the full step list of the experiment, give the numbers "
                                    f"of the steps shown in the video.\n\n{full}")
    elif task == "verification":
        start, end = _run(texts, source, texts.randint(5, 7))  # more than 4 steps: letters past D
        k = end - start
        q.labels, q.options = prompts.letters(k), [str(i) for i in range(1, k + 1)]
        a.label = q.labels[golds.randrange(k - 1)]  # never the segment's final step (as released)
        q.question = question_block(
            "The video should show every step of the list below, but one was cut out. Which step "
            f"is not performed in the video?\n\nStep List:\n{numbered(source.steps[start:end])}")
    else:  # prediction: at least 3 steps shown before the one to predict
        start, end = _run(golds, source, golds.randint(3, 5) + 1)
        a.step = end  # the run's last step (1-based number `end`) is the one cut off
        q.step_count = len(source.steps)
        q.question = question_block("Using the full step list of the experiment, which step comes "
                                    f"right after the end of this video?\n\n{full}")
    return float(texts.randint(4, 5))


def _demo_level3(texts: random.Random, golds: random.Random, task: str, source: _Source, q: Question,
                 a: Answer) -> None:
    blanks = texts.randint(2, 4)
    a.fillers = golds.sample(FILLERS, blanks)
    q.blanks = blanks
    q.question = question_block(_STATEMENTS[task][blanks], title=source.title, discipline=source.discipline)


def demo(secret: Secret, size: int = 60) -> BenchmarkData:
    """A synthetic ExpVid drawn from the suite's secret: all 13 disciplines and all 10
    tasks, tiny clips (2-6 s). `size` items (7,800 for a paper-size suite over 390
    experiments). Public texts come from one stream of the secret, answers from another."""
    texts, golds = secret.rng("expvid-demo:texts"), secret.rng("expvid-demo:golds")
    tasks = _spread(_allocate(size))
    sources = [_demo_source(texts, i) for i in range(max(len(DISCIPLINES), round(len(tasks) / ITEMS_PER_SOURCE)))]
    questions, answers, specs = [], [], {}
    for n, task in enumerate(tasks):
        source = sources[n % len(sources)]
        item_id = f"expvid-demo-{n:05d}"
        q = Question(item_id, "", source.id, TASK_LEVEL[task], task, source.discipline, "")
        a = Answer(item_id, task)
        if q.level == 1:
            stem, q.options, a.label = _demo_level1(texts, golds, task)
            q.labels, q.question = prompts.letters(4), question_block(stem)
            q.video, seconds, scenes = f"expvid-{len(specs):05d}", float(texts.randint(2, 3)), 1
        elif q.level == 2:
            seconds = _demo_level2(texts, golds, task, source, q, a)
            q.video, scenes = f"expvid-{len(specs):05d}", 3
        else:
            _demo_level3(texts, golds, task, source, q, a)
            source.full_video = source.full_video or f"expvid-{len(specs):05d}"
            q.video, seconds, scenes = source.full_video, 6.0, 4
        specs.setdefault(q.video, VideoSpec(seconds=seconds, scenes=scenes))
        questions.append(q)
        answers.append(a)
    return BenchmarkData(NAME, questions, answers, videos={}, video_specs=specs)
