"""Generate the multiple-choice extraction corpus: realistic model responses, each
labelled with the option it intends (or null: no answer).

One JSON line per response, fields: text, labels, options, intended (a label or
null), kind (the template family).  Deterministic (seeded): rerun to regenerate

    python tests/data/extraction_corpus/make_corpus.py

and commit the .jsonl files; tests/evaluator/test_extraction_corpus.py reads them.
Templates and option texts are our own wording, in the style of each benchmark.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

HERE = Path(__file__).resolve().parent
PER_BENCHMARK = 1200
LETTERS = string.ascii_uppercase

# Option texts in each benchmark's style; questions draw from these pools.
EXACT_OPTIONS = [
    "The player keeps the elbow high through the follow-through, which adds power to the shot.",
    "The dancer lands softly on the balls of the feet, absorbing the jump well.",
    "The climber should keep the hips closer to the wall to save energy on this move.",
    "The knee drifts inward on the landing; it should stay over the toes.",
    "Good rhythm on the approach, but the last step is too long and slows the takeoff.",
    "The racket face opens too early, so the ball floats long.",
    "The swimmer breathes every stroke, which breaks the body line; breathe every third stroke.",
    "Excellent balance on the turn: the head stays still and the weight stays centred.",
    "The wrist snaps at release and gives the ball a clean backspin.",
    "The guard position drops after the jab, leaving the chin open.",
    "The cyclist rocks the shoulders on the climb; keep the upper body quiet.",
    "The feet are set too narrow before the lift, so the bar drifts forward.",
    "Nice use of the non-dominant hand to protect the ball while dribbling.",
    "The plant foot points away from the target, pulling the kick wide.",
    "The arms swing across the body while running; drive them forward and back.",
]
VIDEOMMMU_OPTIONS = [
    "12.5 N", "25 N", "0.8 m/s^2", "3.2 J", "The enzyme is denatured at high temperature",
    "Competitive inhibition", "Non-competitive inhibition", "Supply shifts to the left",
    "Demand shifts to the right", "The price ceiling creates a shortage", "O(n log n)", "O(n^2)",
    "Mitosis", "Meiosis II", "The market equilibrium quantity rises", "Increasing the sample size",
    "450 nm", "Ionic bonding", "Covalent bonding", "A stack", "A queue", "Depth-first search",
    "Breadth-first search", "The Treaty of Westphalia", "Impressionism", "Baroque", "x = 4",
    "x = -2", "The integral diverges", "Both loads are in series", "Total internal reflection",
    "1/6", "5/36", "The gross margin falls by 2%", "Straight-line depreciation", "Photosynthesis",
]
EXPVID_OPTIONS = [
    "Pipette", "Centrifuge tube", "Petri dish", "Beaker", "Scalpel", "Vortex mixer", "Forceps",
    "Ethanol", "Agarose gel", "Phosphate buffer", "Add the buffer to the tube", "Spin the sample for 5 minutes",
    "Transfer the supernatant", "Heat the gel until it melts", "Seal the plate with parafilm",
    "Label the flask", "Cut the tissue into small pieces", "The solution turns blue",
    "Two drops", "Ten microliters", "Half of the tube", "Discard the pellet", "Mix by gentle inversion",
]
CAUSALSTEP_OPTIONS = [
    "The chef adds oil to the hot pan", "The man opens the car door and gets in",
    "The girl drops the ball and it rolls away", "The crowd starts to cheer", "The dog jumps over the fence",
    "The woman pours water into the kettle", "The player shoots and the ball hits the post",
    "The worker tightens the last bolt", "The boy falls off the bike", "The lights in the room go out",
    "The cat knocks the glass off the table", "The runner crosses the finish line",
    "The baker takes the bread out of the oven", "The driver brakes hard at the crossing",
]

REASONS = [
    "the person in the video does this right after the previous step",
    "the frames near the end show it clearly",
    "this is what happens once the motion is finished",
    "the other options describe things that never appear in the clip",
    "the close-up in the middle of the clip settles it",
    "it matches both the setting and the order of events",
]
OTHER_REASONS = [
    "does not match what is shown",
    "happens too early in the clip",
    "is never shown",
    "contradicts the last frames",
]


def _question(rng: random.Random, bench: str) -> tuple[list[str], list[str]]:
    """(labels, options) of one question in the benchmark's shape."""
    if bench == "exact":
        return ["1", "2", "3", "4", "5"], rng.sample(EXACT_OPTIONS, 5)
    if bench == "videommmu":
        n = rng.choice([4, 10, 10, 10, 10, 2, 5, 8, 12, 14])
        pool = VIDEOMMMU_OPTIONS
    elif bench == "expvid":
        n = rng.choice([4, 4, 4, 5, 6, 7])
        pool = EXPVID_OPTIONS
    else:
        n = rng.choice([4, 4, 5, 6, 8])
        pool = CAUSALSTEP_OPTIONS
    return list(LETTERS[:n]), rng.sample(pool, n)


def _low(s: str) -> str:
    return s[:1].lower() + s[1:]


# Every template: (kind, intended) and a function of (L, T, M, U, r, rng) that
# returns the response text.  L/T: the intended label and its option text; M/U
# another label and its text; r: a reason.  intended "L" means the label L,
# None means no answer.
def _templates(bench: str):
    word = "Statement" if bench == "exact" else "Option"
    t = [
        # answer first
        ("bare", "L", lambda L, T, M, U, r, g: L),
        ("bare", "L", lambda L, T, M, U, r, g: f"{L}."),
        ("bare", "L", lambda L, T, M, U, r, g: f"({L})"),
        ("bare", "L", lambda L, T, M, U, r, g: f"{L})"),
        ("bare", "L", lambda L, T, M, U, r, g: f"**{L}**"),
        ("bare", "L", lambda L, T, M, U, r, g: f"{L}\n"),
        ("answer_first", "L", lambda L, T, M, U, r, g: f"Answer: {L}"),
        ("answer_first", "L", lambda L, T, M, U, r, g: f"The answer is {L}."),
        ("answer_first", "L", lambda L, T, M, U, r, g: f"The answer is ({L}) {T}."),
        ("answer_first", "L", lambda L, T, M, U, r, g: f"{L}. {T}"),
        ("answer_first", "L", lambda L, T, M, U, r, g: f"{L}. {T}\n\nThe video shows this because {r}."),
        ("answer_first", "L", lambda L, T, M, U, r, g: f"{L} - {_low(T)}, since {r}."),
        ("answer_first", "L", lambda L, T, M, U, r, g: f"The correct answer is {L}, because {r}."),
        # explanation first
        ("explanation_first", "L",
         lambda L, T, M, U, r, g: f"In the clip, {r}. Therefore, the answer is {L}."),
        ("explanation_first", "L",
         lambda L, T, M, U, r, g: f"Looking at the video, {r}. {word} {M} ({U}) {g.choice(OTHER_REASONS)}. "
                                  f"So the correct answer is {L}."),
        ("explanation_first", "L",
         lambda L, T, M, U, r, g: f"Let me think step by step.\n1. {r.capitalize()}.\n2. {word} {M} "
                                  f"{g.choice(OTHER_REASONS)}.\n\nThus the answer is {L}."),
        ("explanation_first", "L",
         lambda L, T, M, U, r, g: f"The key moment is near the end: {r}. This matches \"{T}\". "
                                  f"Answer: {L}"),
        # markdown
        ("markdown", "L", lambda L, T, M, U, r, g: f"## Analysis\n- {r.capitalize()}.\n- {word} {M} is ruled out.\n\n"
                                                   f"## Answer\n**{L}**"),
        ("markdown", "L", lambda L, T, M, U, r, g: f"**Final Answer:** {L}"),
        ("markdown", "L", lambda L, T, M, U, r, g: f"### Final answer\n\n{L}. {T}"),
        ("markdown", "L", lambda L, T, M, U, r, g: f"**Answer: ({L})**\n\n*Reason:* {r}."),
        ("markdown", "L", lambda L, T, M, U, r, g: f"- {M}: no, it {g.choice(OTHER_REASONS)}.\n"
                                                   f"- {L}: yes, {r}.\n\n**Final answer: {L}**"),
        ("markdown", "L", lambda L, T, M, U, r, g: f"The best choice is **{L}**."),
        # LaTeX
        ("latex", "L", lambda L, T, M, U, r, g: f"\\boxed{{{L}}}"),
        ("latex", "L", lambda L, T, M, U, r, g: f"Since {r}, the answer is $\\boxed{{{L}}}$."),
        ("latex", "L", lambda L, T, M, U, r, g: f"$\\boxed{{\\text{{{L}}}}}$"),
        ("latex", "L", lambda L, T, M, U, r, g: f"Final answer: $\\text{{({L})}}$"),
        # JSON
        ("json", "L", lambda L, T, M, U, r, g: json.dumps({"answer": L})),
        ("json", "L", lambda L, T, M, U, r, g: "```json\n" + json.dumps({"answer": L, "reason": r}) + "\n```"),
        ("json", "L", lambda L, T, M, U, r, g: json.dumps({"reasoning": f"{M} {g.choice(OTHER_REASONS)}", "answer": L})),
        # thinking traces, closed
        ("think_closed", "L",
         lambda L, T, M, U, r, g: f"<think>\nThe options are close. {word} {M} {g.choice(OTHER_REASONS)}. "
                                  f"Hmm, {r}, so {L}.\n</think>\n\n{L}"),
        ("think_closed", "L",
         lambda L, T, M, U, r, g: f"<think>{M} or {L}? {r.capitalize()}.</think>\nThe answer is {L}."),
        ("think_closed", "L",
         lambda L, T, M, U, r, g: f"<think>\nLet me check each option... {M} {g.choice(OTHER_REASONS)}.\n"
                                  f"</think>\n\n**{L}**. {T}"),
        # thinking traces cut off before any final answer
        ("think_truncated", None,
         lambda L, T, M, U, r, g: f"<think>\nI think the answer might be {L}, but let me check {M} again. "
                                  f"{r.capitalize()}, and"),
        ("think_truncated", None,
         lambda L, T, M, U, r, g: f"<think>Okay, {word.lower()} {L} says \"{T}\". That looks right. Wait,"),
        ("think_truncated", None,
         lambda L, T, M, U, r, g: f"<think>\n{M} {g.choice(OTHER_REASONS)}. So the answer is {L}. "
                                  f"Let me double-check the frames"),
        # hedges
        ("hedge", "L", lambda L, T, M, U, r, g: f"I'm fairly sure it's {L}."),
        ("hedge", "L", lambda L, T, M, U, r, g: f"I think it's probably {L}, but I'm not completely certain."),
        ("hedge", "L", lambda L, T, M, U, r, g: f"I'd say {L}."),
        ("hedge", "L", lambda L, T, M, U, r, g: f"It is hard to tell from the frames, but my best guess is {L}."),
        ("hedge", None, lambda L, T, M, U, r, g: "I'm not sure."),
        ("hedge", None, lambda L, T, M, U, r, g: f"It could be {L} or {M}; I can't tell from these frames."),
        ("hedge", None, lambda L, T, M, U, r, g: "I'm not certain which option is right."),
        # refusals
        ("refusal", None, lambda L, T, M, U, r, g: "I'm sorry, but I can't view videos."),
        ("refusal", None, lambda L, T, M, U, r, g: "I can't watch the video, so I cannot answer this question."),
        ("refusal", None, lambda L, T, M, U, r, g: "As an AI, I am unable to see the video content."),
        ("refusal", None, lambda L, T, M, U, r, g: "I'm unable to determine the answer from the provided frames."),
        ("refusal", None, lambda L, T, M, U, r, g: ""),
        # option text instead of the label
        ("option_text", "L", lambda L, T, M, U, r, g: T),
        ("option_text", "L", lambda L, T, M, U, r, g: f"The correct option is: {T}"),
        ("option_text", "L", lambda L, T, M, U, r, g: f"Answer: {T}"),
        # label shapes
        ("label_shape", "L", lambda L, T, M, U, r, g: f"{word} ({L})"),
        ("label_shape", "L", lambda L, T, M, U, r, g: f"{word} {L}"),
        ("label_shape", "L", lambda L, T, M, U, r, g: f"The answer is {word.lower()} {L}."),
        ("label_shape", "L", lambda L, T, M, U, r, g: f"{word} {L} is correct."),
        ("label_shape", "L", lambda L, T, M, U, r, g: f"({L}) {T}"),
        # other languages
        ("other_language", "L", lambda L, T, M, U, r, g: f"答案是{L}"),
        ("other_language", "L", lambda L, T, M, U, r, g: f"答案：{L}"),
        ("other_language", "L", lambda L, T, M, U, r, g: f"我选择{L}"),
        ("other_language", "L", lambda L, T, M, U, r, g: f"根据视频内容，正确答案是{L}。"),
        ("other_language", "L", lambda L, T, M, U, r, g: f"选{L}，因为视频最后显示了这个动作。"),
        ("other_language", "L", lambda L, T, M, U, r, g: f"选项{L}"),
        ("other_language", "L", lambda L, T, M, U, r, g: f"答えは{L}です。"),
        ("other_language", "L", lambda L, T, M, U, r, g: f"La respuesta es {L}."),
        ("other_language", "L", lambda L, T, M, U, r, g: f"La réponse est {L}."),
        ("other_language", "L", lambda L, T, M, U, r, g: f"Die Antwort ist {L}."),
        ("other_language", "L", lambda L, T, M, U, r, g: f"Ответ: {L}"),
        # lowercase labels
        ("lowercase", "L", lambda L, T, M, U, r, g: f"the answer is {L.lower()}."),
        ("lowercase", "L", lambda L, T, M, U, r, g: f"answer: ({L.lower()})"),
        ("lowercase", "L", lambda L, T, M, U, r, g: f"{L.lower()})"),
        # several labels discussed, one final
        ("several_then_final", "L",
         lambda L, T, M, U, r, g: f"{word} {M} shows \"{U}\", which {g.choice(OTHER_REASONS)}. {word} {L} "
                                  f"shows \"{T}\", and {r}. The answer is {L}."),
        ("several_then_final", "L",
         lambda L, T, M, U, r, g: f"Comparing ({M}) and ({L}): ({M}) {g.choice(OTHER_REASONS)}, while ({L}) fits. "
                                  f"Final answer: ({L})"),
        # self-corrections
        ("self_correction", "L", lambda L, T, M, U, r, g: f"{M}... wait, actually {L}."),
        ("self_correction", "L",
         lambda L, T, M, U, r, g: f"The answer is {M}. Wait, no - looking again, the answer is {L}."),
        ("self_correction", "L",
         lambda L, T, M, U, r, g: f"Initially I thought {M}, but on reflection the answer is {L}."),
        # notes and pairs after / instead of one answer
        ("note_after", "L", lambda L, T, M, U, r, g: f"Answer: {L} Note: {M} is also plausible."),
        ("note_after", "L", lambda L, T, M, U, r, g: f"The answer is {L}.\n\nNote: {word.lower()} {M} could also "
                                                     f"be argued if the clip were longer."),
        ("two_labels", None, lambda L, T, M, U, r, g: f"{L} and {M} are both correct."),
        ("two_labels", None, lambda L, T, M, U, r, g: f"Both {L} and {M} describe what happens."),
        ("two_labels", None, lambda L, T, M, U, r, g: f"The answer is {L} or {M}."),
        # more realistic mixtures
        ("explanation_first", "L",
         lambda L, T, M, U, r, g: f"A quick look at the frames: {r}. I am confident the answer is {L}."),
        ("explanation_first", "L",
         lambda L, T, M, U, r, g: f"{word} {M} can be eliminated because it {g.choice(OTHER_REASONS)}.\n\n"
                                  f"Therefore, the correct {word.lower()} is {L}."),
        ("markdown", "L", lambda L, T, M, U, r, g: f"**Reasoning:** {r}.\n\n**Answer:** {L}. {T}"),
        ("markdown", "L", lambda L, T, M, U, r, g: f"> {r.capitalize()}.\n\n**{L}**"),
        ("latex", "L", lambda L, T, M, U, r, g: f"We compare {M} and {L}: {r}.\n\n\\[\\boxed{{{L}}}\\]"),
        ("json", "L", lambda L, T, M, U, r, g: f"```\n{{\"answer\": \"({L})\"}}\n```"),
        ("think_closed", "L",
         lambda L, T, M, U, r, g: f"<think>\nFirst I thought {M}, since \"{U}\" sounds close. But {r}.\n"
                                  f"</think>\n\nFinal answer: {L}"),
        ("think_truncated", None,
         lambda L, T, M, U, r, g: f"<think>\nThe question asks which option matches. {word} {L}: \"{T}\"."
                                  f" {word} {M}: \"{U}\". The correct one should be {L}"),
        ("hedge", "L", lambda L, T, M, U, r, g: f"Probably {L}."),
        ("hedge", "L", lambda L, T, M, U, r, g: f"I believe the answer is {L}, though the frames are blurry."),
        ("refusal", None, lambda L, T, M, U, r, g: "I cannot determine the answer because the video is not "
                                                   "available to me."),
        ("refusal", None, lambda L, T, M, U, r, g: "None of the options match what is shown in the video."),
        ("option_text", "L", lambda L, T, M, U, r, g: f"**{T}**"),
        ("label_shape", "L", lambda L, T, M, U, r, g: f"[{L}]"),
        ("label_shape", "L", lambda L, T, M, U, r, g: f"{L}: {T}"),
        ("other_language", "L", lambda L, T, M, U, r, g: f"最终答案：{L}"),
        ("other_language", "L", lambda L, T, M, U, r, g: f"正解は{L}です。"),
        ("other_language", "L", lambda L, T, M, U, r, g: f"La respuesta correcta es la {L}."),
        ("other_language", "L", lambda L, T, M, U, r, g: f"La bonne réponse est ({L})."),
        ("other_language", "L", lambda L, T, M, U, r, g: f"Die richtige Antwort ist {L}."),
        ("other_language", "L", lambda L, T, M, U, r, g: f"정답은 {L}입니다."),
        ("lowercase", "L", lambda L, T, M, U, r, g: f"i think the answer is {L.lower()})"),
        ("self_correction", "L",
         lambda L, T, M, U, r, g: f"Answer: {M}\n\nCorrection: looking at the last frames again, the answer is {L}."),
        ("note_after", "L", lambda L, T, M, U, r, g: f"**Answer: {L}**\n\nNote: {M} is a common distractor here."),
        ("two_labels", None, lambda L, T, M, U, r, g: f"Both options {L} and {M} are correct."),
        ("two_labels", None, lambda L, T, M, U, r, g: f"({L}) and ({M})"),
    ]
    return t


def _pick_labels(rng: random.Random, labels: list[str]) -> tuple[int, int]:
    i = rng.randrange(len(labels))
    j = rng.choice([k for k in range(len(labels)) if k != i])
    return i, j


def generate(bench: str, n: int = PER_BENCHMARK, seed: int = 0) -> list[dict]:
    rng = random.Random(f"{bench}:{seed}")
    templates = _templates(bench)
    rows = []
    for k in range(n):
        kind, intended, make = templates[k % len(templates)]  # every template equally often
        labels, options = _question(rng, bench)
        i, j = _pick_labels(rng, labels)
        L, M = labels[i], labels[j]
        text = make(L, options[i], M, options[j], rng.choice(REASONS), rng)
        rows.append({"text": text, "labels": labels, "options": options,
                     "intended": L if intended == "L" else None, "kind": kind})
    return rows


BENCHMARKS = ("exact", "videommmu", "expvid", "causalstep")


def main() -> None:
    for bench in BENCHMARKS:
        path = HERE / f"{bench}.jsonl"
        with open(path, "w", encoding="utf-8") as f:
            for row in generate(bench):
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{path.name}: {PER_BENCHMARK} responses")


if __name__ == "__main__":
    main()
