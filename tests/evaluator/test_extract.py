"""Tests for answer extraction from raw model outputs: the shared readers
(evaluator/answers/) and the benchmarks' own (expvid, videosimpleqa answers).

Cases are realistic outputs in the styles of Qwen2.5-VL, InternVL, LLaVA,
GPT-4o, Gemini and o3/R1-style reasoning models.  Each list holds
(response, expected) pairs for one answer type.
"""


import pytest

from evaluator.answers import (
    extract_choice,
    extract_number,
    last_boxed,
    read_cut_off_reasoning,
    reasoning_cut_off,
    strip_reasoning,
)
from evaluator.benchmarks.expvid.answers import extract_int_list
from evaluator.benchmarks.expvid.blanks import extract_blanks
from evaluator.benchmarks.videosimpleqa.answers import extract_short_answer

LETTERS5 = ["A", "B", "C", "D", "E"]
LETTERS4 = ["A", "B", "C", "D"]
DIGITS5 = ["1", "2", "3", "4", "5"]

# A long chain of thought that names every option before concluding.
_R1_THINK = (
    "<think>\nOkay, let me look at the video again. At the start the person is standing next to the "
    "counter. Option A says they open the fridge, but I don't see the fridge at all. Option B says "
    "they pick up a knife - that happens around 0:12. Option C mentions pouring water, which never "
    "happens. Option D is about washing hands; there's a sink but no washing. Hmm, wait, maybe A? "
    "No. The knife is clearly picked up, so B.\n</think>\n\n"
)
_LONG_ANALYSIS = (
    "Let's analyze each option carefully.\n\n"
    "A. The woman waters the plants - she holds a watering can but never uses it.\n"
    "B. The woman reads a book - there is no book in the frames.\n"
    "C. The woman trims the hedge - she uses shears on the hedge from 0:05 to 0:40.\n"
    "D. The woman paints the fence - the fence is already painted.\n\n"
)

# ---------------------------------------------------------------------------
# Multiple choice with letter labels (A-E unless stated)
# ---------------------------------------------------------------------------

CHOICE_LETTER_CASES = [
    # bare labels (InternVL / LLaVA / Qwen2.5-VL with "answer with the letter")
    ("B", "B"),
    ("C.", "C"),
    ("(D)", "D"),
    ("  A\n", "A"),
    ("**E**", "E"),
    ("[B]", "B"),
    ("Option C", "C"),
    ("Answer: D", "D"),
    ("answer: a", "A"),
    ("b", "B"),
    # label followed by the option text or explanation
    ("B. The man places the cup on the table.", "B"),
    ("C) He turns off the light", "C"),
    ("(A) The dog jumps over the fence.", "A"),
    ("**(D) She is slicing tomatoes**", "D"),
    ("D: The car turns left at the intersection.", "D"),
    ("B\n\nThe person picks up the red box after putting down the phone.", "B"),
    ("E - none of the above actions occur in the clip.", "E"),
    ("A. Because the boy throws the ball before the dog starts running.", "A"),
    ("C. Explanation: the chef adds salt at the end, not at the beginning as options A and B claim.", "C"),
    # explicit answer markers (GPT-4o / Gemini style)
    ("The answer is (B).", "B"),
    ("The correct answer is **C. The man opens the door**.", "C"),
    ("Answer: **B**", "B"),
    ("**Answer:** (E) The bicycle falls over.", "E"),
    ("**Answer**: A", "A"),
    ("Based on the video, the correct option is D.", "D"),
    ("The best answer is B, as the person clearly waves at the camera.", "B"),
    ("After watching the clip, I'd choose option C.", "C"),
    ("I will go with (A).", "A"),
    ("the answer is b", "B"),
    ("So the answer is e.", "E"),
    ("My answer: **(C)**", "C"),
    ("Final Answer: The final answer is $\\boxed{D}$", "D"),
    ("Answer - B", "B"),
    ("The answer to the question is C because the cat enters from the left.", "C"),
    ("B is the correct answer because the woman hands over the keys.", "B"),
    ("Therefore, (C) is correct.", "C"),
    ("Option D is the most accurate description of the scene.", "D"),
    # reasoning first, final answer last
    (
        "The video shows a man in a kitchen. Option A mentions a garden, which is wrong. "
        "Option B says he cooks pasta, but I only see rice. Option C fits: he stirs rice in a pot. "
        "Option D is unrelated.\n\nAnswer: C",
        "C",
    ),
    (
        "First, at 0:03 the player passes to a teammate (A could be plausible). Then at 0:10 the "
        "teammate shoots and scores, which rules out A and D. Between B and C, B says the goalkeeper "
        "saves it, which does not happen.\n\n**Final Answer: C**",
        "C",
    ),
    (_LONG_ANALYSIS + "Therefore, the answer is C.", "C"),
    (_LONG_ANALYSIS + "**Final Answer**\n\nC", "C"),
    (_LONG_ANALYSIS + "The correct option is:\n\n**C. The woman trims the hedge**", "C"),
    ("Initially I thought the answer is A. However, on closer inspection the man uses his left hand, so the answer is D.", "D"),
    # <think> blocks (R1 / QwQ / Qwen3 / Kimi-VL)
    (_R1_THINK + "B", "B"),
    (_R1_THINK + "The person picks up a knife.\n\n**Answer: B**", "B"),
    (_R1_THINK + "\\boxed{B}", "B"),
    ("<think>The ball is red in every frame, so option A is wrong... the answer is C.</think>", "C"),
    ("<think>\nA or D? The clock shows 3:15, so D.\n", None),  # cut off: no final answer
    ("<think></think>\n\nA", "A"),
    ("<thinking>Checking frames 1-8... B is ruled out.</thinking>\nAnswer: E", "E"),
    ("◁think▷The man is on a bicycle, not a car. C says bicycle.◁/think▷C", "C"),
    ("<think>Option B seems right at first, but the cup is blue.</think>\n<answer>D</answer>", "D"),
    # \boxed forms
    ("The video clearly shows the second event. \\boxed{B}", "B"),
    ("\\boxed{\\text{C}}", "C"),
    ("\\boxed{D. The man leaves the room}", "D"),
    ("\\boxed{(A)}", "A"),
    ("Reasoning... initially \\boxed{A} seemed right, but re-checking gives \\boxed{E}", "E"),
    ("\\fbox{B}", "B"),
    ("$\\boxed{\\textbf{C}}$", "C"),
    # refusals, empty output, no answer
    ("", None),
    ("   \n  ", None),
    ("I cannot determine this from the video.", None),
    ("I'm sorry, but I can't help with identifying people in this video.", None),
    ("The video does not provide enough information to answer the question.", None),
    ("<think>\n", None),
    # letters outside the label set are ignored
    ("The answer is F.", None),
    ("\\boxed{G}", None),
    ("Answer: Z", None),
    # ambiguity without a decisive final marker -> None (documented)
    ("The answer is A or B.", None),
    ("A or B", None),
    ("It could be (B) or (C); the video is too dark to tell.", None),
    ("Answer: B, D", None),
    # capital I / article A in running text are not labels
    ("I think it's hard to say.", None),
    ("A man walks into the room and sits down.", None),
    # later explanation must not override the explicit answer
    ("Answer: C. The man pours water. Option B is the correct distractor.", "C"),
    ("The options A and C both describe the same event, but A is more precise. Answer: A", "A"),
    ("The man does not pick up the knife (B is wrong). He pours water, so the answer is C.", "C"),
    ("A. wrong\nB. wrong\nC. right\nD. wrong\n\nThe answer is C.", "C"),
    # walking through options without concluding -> None
    ("Option A mentions a cup.\nOption B mentions a knife.\nOption C mentions water.", None),
    ("In the video, a woman enters. So, B.", "B"),
    ("Sure! The correct answer is: \n\n**B) The dog runs away**", "B"),
    ("ANSWER: B", "B"),
    ("Answer:A", "A"),
    ("答案：C", "C"),
    ("B is incorrect. The answer is not B.", None),
    ("I'm not sure, but I'd go with D.", "D"),
    ("The answer is not A, it's B.", "B"),  # negated mention does not count
    # answer first, long explanation after (marker far from the end)
    (
        "Answer: C\n\nExplanation: In the first seconds the woman holds a cup, which might suggest "
        "A or B, but she never drinks from it; instead she pours the tea into the pot and stirs it "
        "slowly, and option D's description of the kettle is clearly wrong.",
        "C",
    ),
    (
        "The correct answer is (D) The cyclist falls. While (A) and (B) describe earlier moments "
        "of the clip and (C) mentions a car that only appears in the background, only D captures "
        "the final event the question asks about.",
        "D",
    ),
    # two markers close together: the later one wins
    ("Answer: A. Hmm, no - the cup is blue. Answer: C", "C"),
    ("I choose B... actually I choose E.", "E"),
    ("Option A is not correct. Option C is not correct. Option D is correct.", "D"),
]

WIDE_LABELS_CASES = [
    # 7 labels (A-G) and 14 labels (A-N): letters past D must work
    ("G", list("ABCDEFG"), "G"),
    ("The answer is (F).", list("ABCDEFG"), "F"),
    ("**Answer: G** The woman closes the window last.", list("ABCDEFG"), "G"),
    ("\\boxed{E}", list("ABCDEFG"), "E"),
    ("Looking at the sequence, option G matches the order of events best.\n\nG", list("ABCDEFG"), "G"),
    ("Answer: K", list("ABCDEFGHIJKLMN"), "K"),
    ("(N) None of the above", list("ABCDEFGHIJKLMN"), "N"),
    ("The correct choice is I.", list("ABCDEFGHIJKLMN"), "I"),
    ("I think the answer is J.", list("ABCDEFGHIJKLMN"), "J"),
    ("I cannot determine this from the video.", list("ABCDEFGHIJKLMN"), None),
    ("H. The referee shows a yellow card.", list("ABCDEFGHIJKLMN"), "H"),
    ("Answer: H", list("ABCDEFG"), None),  # H not among A-G
]

OPTIONS_KITCHEN = [
    "Washing the dishes",
    "Cutting onions",
    "Boiling water",
    "Frying an egg",
    "Cutting onions and garlic",
]

OPTION_TEXT_CASES = [
    # the model answers with the option text instead of the label
    ("Cutting onions", OPTIONS_KITCHEN, "B"),
    ("cutting onions.", OPTIONS_KITCHEN, "B"),
    ("**Frying an egg**", OPTIONS_KITCHEN, "D"),
    ("Answer: Boiling water", OPTIONS_KITCHEN, "C"),
    ("The answer is washing the dishes.", OPTIONS_KITCHEN, "A"),
    ("Cutting onions and garlic", OPTIONS_KITCHEN, "E"),  # longest exact match
    ("The person in the video is frying an egg in a pan.", OPTIONS_KITCHEN, "D"),
    ("She is cutting onions and garlic on a board.", OPTIONS_KITCHEN, "E"),  # longest containing
    ("The person is washing the dishes, then boiling water.", OPTIONS_KITCHEN, None),  # two options
    (
        "A man is running",
        ["A woman is walking", "A man is running", "A child is sitting", "A dog is barking"],
        "B",
    ),
    (
        "Answer: A man is running.",
        ["A woman is walking", "A man is running", "A child is sitting", "A dog is barking"],
        "B",
    ),
    ("B. Cutting onions", OPTIONS_KITCHEN, "B"),
    ("\\boxed{Frying an egg}", OPTIONS_KITCHEN, "D"),
    ("A. Washing the dishes", ["A. Washing the dishes", "B. Cutting onions"], "A"),
]


@pytest.mark.parametrize("response,expected", CHOICE_LETTER_CASES)
def test_choice_letters(response, expected):
    assert extract_choice(response, LETTERS5) == expected


@pytest.mark.parametrize("response,labels,expected", WIDE_LABELS_CASES)
def test_choice_wide_labels(response, labels, expected):
    assert extract_choice(response, labels) == expected


@pytest.mark.parametrize("response,options,expected", OPTION_TEXT_CASES)
def test_choice_option_text(response, options, expected):
    labels = [chr(ord("A") + i) for i in range(len(options))]
    assert extract_choice(response, labels, options) == expected


# ---------------------------------------------------------------------------
# Multiple choice with digit labels 1-5 (ExAct)
# ---------------------------------------------------------------------------

EXACT_OPTIONS = [
    "The player dribbles past two defenders",
    "The player passes the ball backwards",
    "The player shoots and misses the goal",
    "The player falls after a tackle",
    "The player performs a throw-in",
]

CHOICE_DIGIT_CASES = [
    ("3", "3"),
    ("3.", "3"),
    ("(2)", "2"),
    ("**4**", "4"),
    ("Option 3", "3"),
    ("option 5", "5"),
    ("Option 3: The player shoots and misses the goal", "3"),
    ("I choose 3", "3"),
    ("I choose option 1.", "1"),
    ("The answer is 2.", "2"),
    ("Answer: 4", "4"),
    ("**Answer:** 5", "5"),
    ("The correct option is (1).", "1"),
    ("2) The player passes the ball backwards", "2"),
    ("4. The player falls after a tackle.", "4"),
    ("\\boxed{3}", "3"),
    ("\\boxed{\\text{4}}", "4"),
    ("\\boxed{Option 2}", "2"),
    ("Final answer: 5", "5"),
    ("The answer is option 2.", "2"),
    (" 1 ", "1"),
    ("**Final Answer**\n\n4", "4"),
    ("Option 2 is correct.", "2"),
    ("The best choice is option 4 because the defender's tackle knocks him down.", "4"),
    ("After reviewing all five options, I would choose option 3.", "3"),
    (
        "The player receives the ball at 0:02 and runs for about 3 seconds. He then kicks toward "
        "the goal but the ball goes wide. Option 1 is wrong since no defender is passed; option 4 "
        "is wrong because nobody tackles him.\n\nAnswer: 3",
        "3",
    ),
    (
        "Let me go through the options:\n1. Dribbling - no.\n2. Passing backwards - no.\n"
        "3. Shooting and missing - yes, the ball hits the post.\n4. Falling - no.\n5. Throw-in - no.\n\n"
        "The answer is 3.",
        "3",
    ),
    (
        "<think>The clip is 8 seconds long. At 2 seconds the player takes a shot. 2 defenders are "
        "nearby but he doesn't dribble past them. So option 3, shoots and misses.</think>\n\n3",
        "3",
    ),
    ("<think>Probably 1... no, he loses the ball. It's 4.</think>\nAnswer: 4", "4"),
    ("<think>\nThe ball goes out, then a throw-in is taken. The answer is 5.\n", None),  # cut off
    ("<think>Option 2 vs option 4. He passes back to the keeper.</think>\\boxed{2}", "2"),
    ("The answer is 3.5", None),  # a number, not a label
    ("Answer: 6", None),  # out of range
    ("Option 7", None),
    ("", None),
    ("I cannot determine this from the video.", None),
    ("The video is too blurry to tell which action happens.", None),
    ("The answer is 2 or 3.", None),
    ("Either (1) or (5).", None),
    ("3\n\nThe player shoots from outside the box but the ball flies over the bar.", "3"),
    ("(5) The player performs a throw-in.", "5"),
    ("Answer: (2) The player passes the ball backwards.", "2"),
    ("I select 1.", "1"),
    ("My choice: 4", "4"),
    ("The correct answer is: 1", "1"),
    ("**(3)**", "3"),
    ("Answer:\n\n5", "5"),
    ("The correct option would be 2.", "2"),
    ("\\boxed{4. The player falls after a tackle}", "4"),
    ("Therefore, 1.", "1"),
    ("3 is the right answer.", "3"),
    ("<answer>2</answer>", "2"),
    ("**Answer: 4** - the defender slides in and the attacker goes down.", "4"),
    ("Based on the footage, the most accurate description is option 5.", "5"),
    ("The correct choice is 1.", "1"),
    ("Answer: (3)\nReason: the shot is taken from about 25 meters and goes wide.", "3"),
    ("After 2 touches the player shoots; it misses. Final answer: 3", "3"),
    ("I would pick 2.", "2"),
    ("Answer: option 4", "4"),
    ("Not 1 - looking again, the answer is 4.", "4"),
    (
        "<think>\nThe player has the ball at 0:01. At 0:04 he is tackled and falls. Options 1, 2, 3 "
        "and 5 don't match. So 4.\n</think>\n\n**4**",
        "4",
    ),
    ("Option 3 or option 5; I can't tell from the angle.", None),
    ("2 and 4", None),
]

CHOICE_DIGIT_TEXT_CASES = [
    # option text instead of its number
    ("The player shoots and misses the goal", "3"),
    ("The player performs a throw-in.", "5"),
    ("Answer: The player passes the ball backwards", "2"),
    ("In the video, the player falls after a tackle near the box.", "4"),
    ("\\boxed{The player dribbles past two defenders}", "1"),
    ("**The player shoots and misses the goal**", "3"),
    ("The player performs a throw-in or the player falls after a tackle.", None),
]


@pytest.mark.parametrize("response,expected", CHOICE_DIGIT_CASES)
def test_choice_digits(response, expected):
    assert extract_choice(response, DIGITS5) == expected


@pytest.mark.parametrize("response,expected", CHOICE_DIGIT_TEXT_CASES)
def test_choice_digits_option_text(response, expected):
    assert extract_choice(response, DIGITS5, EXACT_OPTIONS) == expected


def test_choice_digit_labels_with_options_still_take_labels():
    assert extract_choice("Answer: 4", DIGITS5, EXACT_OPTIONS) == "4"
    assert extract_choice("Option 2: The player passes the ball backwards", DIGITS5, EXACT_OPTIONS) == "2"


def test_choice_returns_callers_label_object():
    # lowercase labels come back exactly as given
    assert extract_choice("Answer: C", ["a", "b", "c", "d"]) == "c"


# ---------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------

NUMBER_CASES = [
    ("12", 12.0),
    ("12.5", 12.5),
    ("The answer is 12.5 mL", 12.5),
    ("The answer is 12.5 mL.", 12.5),
    ("Answer: 45 %", 45.0),
    ("50%", 50.0),
    ("The temperature is 37.5°C.", 37.5),
    ("−5 °C", -5.0),
    ("-12.3", -12.3),
    ("The final temperature reading is -4 °C.", -4.0),
    ("The car travels at about 60 km/h.", 60.0),
    ("The motor spins at 1,500 rpm.", 1500.0),
    ("1,000", 1000.0),
    ("Total: 12,345,678 grains", 12345678.0),
    ("The sample weighs 2.75 kg", 2.75),
    ("It takes 14 s for the ball to stop.", 14.0),
    ("3.2e5", 320000.0),
    ("The count is 3.2 × 10^5 cells per mL.", 320000.0),
    ("Roughly 6.02 x 10^23 molecules", 6.02e23),
    ("1.5×10⁻³ mol", 1.5e-3),
    ("3/4", 0.75),
    ("About 1/2 of the beaker is filled.", 0.5),
    ("Step 17", 17.0),
    ("The last step shown is Step 17.", 17.0),
    ("seven", 7.0),
    ("There are twelve people in the room.", 12.0),
    ("Zero", 0.0),
    ("\\boxed{42}", 42.0),
    ("\\boxed{12.5 \\text{ mL}}", 12.5),
    ("\\boxed{\\frac{3}{4}}", 0.75),
    ("\\boxed{1{,}200}", 1200.0),
    ("\\boxed{25\\%}", 25.0),
    ("\\boxed{3.2 \\times 10^{5}}", 320000.0),
    ("\\boxed{x = 8}", 8.0),
    ("$\\boxed{-3}$", -3.0),
    ("\\boxed{\\text{seven}}", 7.0),
    ("First the beaker holds 100 mL. Then 25 mL is poured out. 100 - 25 = 75. The answer is 75 mL.", 75.0),
    ("The person pours 3 cups, then 2 more cups, so 5 cups in total.", 5.0),
    (
        "Let me count the repetitions. The first squat is at 0:02, the second at 0:05, ... the last at "
        "0:41. That is 14 squats.\n\n**Final Answer:** 14",
        14.0,
    ),
    ("**Final Answer**\n\n23.5 cm", 23.5),
    ("Answer: approximately 3,000 rpm", 3000.0),
    ("The answer is: 0.85 g/mL", 0.85),
    ("Final answer: 9.81 m/s²", 9.81),
    (
        "<think>The thermometer first shows 20 °C, then after heating it shows 80 °C. "
        "The difference is 60. Wait, it's 85 at the end. 85 - 20 = 65.</think>\n\nThe temperature rose by 65 °C.",
        65.0,
    ),
    ("<think>Counting: 1, 2, 3, 4, 5, 6. So six.</think>\n\\boxed{6}", 6.0),
    ("<think>\nThe needle points at 7.5 on the scale, so the answer is 7.5 N.\n", None),  # cut off
    ("<think>3 + 4 = 7</think>", 7.0),
    ("The answer is 12, not 15 as one might think.", 12.0),
    ("The reading on the gauge is 2.4 bar (about 35 psi).\n\nAnswer: 2.4", 2.4),
    ("**Answer: 128**", 128.0),
    ("Answer: 0.5", 0.5),
    ("The answer is .75", 0.75),
    ("At 30 seconds the pH meter shows 6.8.", 6.8),
    ("The model Qwen2 says 4", 4.0),
    ("", None),
    ("I cannot determine this from the video.", None),
    ("The video does not show a measuring instrument.", None),
    ("<think>\n", None),
    ("\\boxed{}", None),
    ("N/A", None),
    ("The answer is eleven.", 11.0),
    ("The video shows 4 people, 3 of whom wear hats. The answer is 3.", 3.0),
    ("Answer: 1e-3 s", 0.001),
    ("Final answer: -0.25", -0.25),
    ("The acceleration is 9.8 m/s^2", 9.8),  # unit exponent is not the answer
    ("The volume is 12 cm^{3}.", 12.0),
    ("\\boxed{2^{10}}", 1024.0),
    ("1\u202f000\u202f000 cells", 1_000_000.0),
    ("The volume changes from 20 mL to 35 mL. The answer is 15.", 15.0),
    ("Someone pours the water; nothing is measured.", None),  # "one" inside a word
]


@pytest.mark.parametrize("response,expected", NUMBER_CASES)
def test_extract_number(response, expected):
    got = extract_number(response)
    if expected is None:
        assert got is None
    else:
        assert got == pytest.approx(expected, rel=1e-9)


# ---------------------------------------------------------------------------
# Integer lists (step numbers)
# ---------------------------------------------------------------------------

INT_LIST_CASES = [
    ("\\boxed{60, 61, 62}", [60, 61, 62]),
    ("\\boxed{[3, 4, 5]}", [3, 4, 5]),
    ("\\boxed{3-5}", [3, 4, 5]),
    ("[3, 4, 5]", [3, 4, 5]),
    ("[12,13,14]", [12, 13, 14]),
    ("3, 4, 5", [3, 4, 5]),
    ("Steps 3, 4 and 5", [3, 4, 5]),
    ("Steps 3, 4, and 5.", [3, 4, 5]),
    ("3-5", [3, 4, 5]),
    ("3–5", [3, 4, 5]),
    ("Steps 7–9", [7, 8, 9]),
    ("Steps 1-3 and 6", [1, 2, 3, 6]),
    ("Step 12, Step 13", [12, 13]),
    ("Step 12, Step 13, Step 14.", [12, 13, 14]),
    ("1.\n2.\n3.", [1, 2, 3]),
    ("4\n5\n6", [4, 5, 6]),
    ("- Step 3\n- Step 4\n- Step 8", [3, 4, 8]),
    ("The steps shown are 7, 8, 9.", [7, 8, 9]),
    ("The steps shown in the video are: 2, 5, 6", [2, 5, 6]),
    ("Answer: 10, 11, 12", [10, 11, 12]),
    ("**Answer:** Steps 4, 5, 6", [4, 5, 6]),
    ("The answer is [2, 3, 4].", [2, 3, 4]),
    ("Steps 3 to 5", [3, 4, 5]),
    ("from step 3 to step 6", [3, 4, 5, 6]),
    ("3, 3, 4, 4, 5", [3, 4, 5]),
    ("5, 3, 4", [5, 3, 4]),
    ("Step 1-100", list(range(1, 101))),
    ("1-500", [1, 500]),  # too large to expand
    ("5-3", [5, 3]),  # not an increasing range
    (
        "The video begins with the chef chopping garlic (step 3), then heating oil (step 4) and "
        "finally adding the garlic to the pan (step 5).\n\nAnswer: 3, 4, 5",
        [3, 4, 5],
    ),
    (
        "Looking at the recipe steps:\n1. Preheat the oven\n2. Mix flour\n3. Add eggs\n4. Bake\n\n"
        "In the clip I see the eggs being added and the batter being mixed. So the steps shown are 2 and 3.",
        [2, 3],
    ),
    (
        "The video shows the following steps:\n- Step 3: cracking eggs\n- Step 4: whisking\n- Step 5: pouring",
        [3, 4, 5],
    ),
    ("Answer:\n- Step 6\n- Step 7", [6, 7]),
    ("1. Step 3: crack the eggs\n2. Step 5: whisk", [3, 5]),
    ("**Final Answer:** [8, 9, 10]", [8, 9, 10]),
    (
        "<think>The person cuts the wood (step 2), sands it (step 3). Step 4 is painting, which "
        "isn't shown.</think>\n\n[2, 3]",
        [2, 3],
    ),
    ("<think>Steps 1, 2 are not shown. Steps 3 and 4 are.</think>\n\\boxed{3, 4}", [3, 4]),
    ("<think>\nI see steps 5, 6 and 7 in the clip, so the answer is 5, 6, 7.\n", None),  # cut off
    ("The steps performed between 0:15 and 1:20 are 9, 10 and 11.", [9, 10, 11]),
    ("Steps 2, 4, 6 (from 00:10 to 00:45)", [2, 4, 6]),
    ("Step 3 (at 0:30)", [3]),
    ("The video shows step 8.", [8]),
    ("8", [8]),
    ("The steps are: 14, 15, 16, 17", [14, 15, 16, 17]),
    ("steps: 1,2,3", [1, 2, 3]),
    ("**3, 4, 5**", [3, 4, 5]),
    ("Steps 3; 4; 5", [3, 4, 5]),
    ("Steps 3 through 6", [3, 4, 5, 6]),
    ("The answer is steps 11-13.", [11, 12, 13]),
    ("3rd, 4th and 5th steps", [3, 4, 5]),
    ("`[21, 22]`", [21, 22]),
    ('{"steps": [5, 6]}', [5, 6]),
    ("\\boxed{\\{2, 3\\}}", [2, 3]),
    ("\\boxed{Step 4, Step 5}", [4, 5]),
    ("Answer: Step 7", [7]),
    ("Step 6\nStep 7\nStep 8", [6, 7, 8]),
    ("", None),
    ("I cannot determine which steps are shown in the video.", None),
    ("None of the steps are visible.", None),
    ("<think>\n", None),
    ("\\boxed{none}", None),
    ("In the clip, I can see:\n1. Crack eggs (step 2)\n2. Whisk (step 3)", [2, 3]),
    ("Answer: Steps 2, 3\n\nExplanation: Step 4 is not shown.", [2, 3]),
    ("The video covers steps 10 to 12 of the recipe.", [10, 11, 12]),
]


@pytest.mark.parametrize("response,expected", INT_LIST_CASES)
def test_extract_int_list(response, expected):
    assert extract_int_list(response) == expected


# ---------------------------------------------------------------------------
# Fill in the blanks
# ---------------------------------------------------------------------------

BLANK_CASES = [
    # (response, n, expected)
    ("sodium chloride", 1, ["sodium chloride"]),
    ("sodium, chlorine", 2, ["sodium", "chlorine"]),
    ("\\boxed{sodium, chlorine}", 2, ["sodium", "chlorine"]),
    ("\\boxed{\\text{mitochondria}}", 1, ["mitochondria"]),
    ("\\boxed{2,4-D; water}", 2, ["2,4-D", "water"]),
    ("2,4-D; water", 2, ["2,4-D", "water"]),
    ("2,4-D, water", 2, ["2,4-D", "water"]),
    ("1,000, 250", 2, ["1,000", "250"]),
    ("The answers are 1,000 and 250.", 2, ["1,000", "250"]),
    ('["red", "blue"]', 2, ["red", "blue"]),
    ("['oxygen', 'carbon dioxide']", 2, ["oxygen", "carbon dioxide"]),
    ('Answer: ["Paris", "France", "Seine"]', 3, ["Paris", "France", "Seine"]),
    ("1. evaporation\n2. condensation\n3. precipitation", 3, ["evaporation", "condensation", "precipitation"]),
    ("(1) clockwise (2) counterclockwise", 2, ["clockwise", "counterclockwise"]),
    ("Blank 1: hammer\nBlank 2: nail", 2, ["hammer", "nail"]),
    ("Blank 1: hammer; Blank 2: nail", 2, ["hammer", "nail"]),
    ("[1] stir [2] boil", 2, ["stir", "boil"]),
    ("salt, pepper, and olive oil", 3, ["salt", "pepper", "olive oil"]),
    ("salt, pepper and olive oil", 3, ["salt", "pepper", "olive oil"]),
    ("salt and pepper", 2, ["salt", "pepper"]),
    ("salt and pepper", 1, ["salt and pepper"]),
    ('"copper", "zinc"', 2, ["copper", "zinc"]),
    ("**copper**, **zinc**", 2, ["copper", "zinc"]),
    ("copper; zinc.", 2, ["copper", "zinc"]),
    ("Answer: copper, zinc.", 2, ["copper", "zinc"]),
    ("**Answer:** left, right", 2, ["left", "right"]),
    ("The answers are: anode, cathode", 2, ["anode", "cathode"]),
    ("Final answer: 37 °C, 98.6 °F", 2, ["37 °C", "98.6 °F"]),
    ("\\boxed{3.5 g}, \\boxed{12 mL}", 2, ["3.5 g", "12 mL"]),
    ("The first blank is \\boxed{iron} and the second is \\boxed{rust}.", 2, ["iron", "rust"]),
    ("\\boxed{iron}", None, ["iron"]),
    ("\\boxed{iron, rust}", None, ["iron", "rust"]),
    ("iron, rust", None, ["iron", "rust"]),
    ("photosynthesis", None, ["photosynthesis"]),
    (
        "The video shows a titration. The indicator turns pink at the endpoint, and the titrant is "
        "sodium hydroxide.\n\nAnswer: phenolphthalein, sodium hydroxide",
        2,
        ["phenolphthalein", "sodium hydroxide"],
    ),
    (
        "<think>The first blank asks for the tool: a screwdriver. The second is the part: the hinge."
        "</think>\n\nscrewdriver, hinge",
        2,
        ["screwdriver", "hinge"],
    ),
    ("<think>Blank 1 is probably 'north'. Blank 2 'south'.</think>\n\\boxed{north, south}", 2, ["north", "south"]),
    ("<think>\nSo the answers are: ethanol, yeast\n", 2, None),  # cut off
    ("Here are the answers:\n1. Newton\n2. Joule\n\nLet me know if you need more help!", 2, ["Newton", "Joule"]),
    ("1) acid\n2) base", 2, ["acid", "base"]),
    ("1. 2,4-D\n2. glyphosate", 2, ["2,4-D", "glyphosate"]),
    ("(1) 1,500 (2) 3,000", 2, ["1,500", "3,000"]),
    ("Blank 1 - sugar\nBlank 2 - flour", 2, ["sugar", "flour"]),
    ("sugar\nflour", 2, ["sugar", "flour"]),
    ("mitochondria.", 1, ["mitochondria"]),
    ("'mitochondria'", 1, ["mitochondria"]),
    ("The answer is glucose.", 1, ["glucose"]),
    ("Answer: `HCl`, `NaOH`", 2, ["HCl", "NaOH"]),
    ("“red”, “green”", 2, ["red", "green"]),
    ("clockwise; 90 degrees; 3 times", 3, ["clockwise", "90 degrees", "3 times"]),
    ("Answer: 9.8 m/s², downward", 2, ["9.8 m/s²", "downward"]),
    ("\\boxed{1,000}", 1, ["1,000"]),
    ("\\boxed{\\text{NaCl}; \\text{H}_2\\text{O}}", 2, ["NaCl", "H_2O"]),
    ('{"blanks": ["heat", "pressure"]}', 2, ["heat", "pressure"]),
    ("The blanks are filled with: heat, pressure", 2, ["heat", "pressure"]),
    ("Answers:\n1. spinal cord\n2. brain", 2, ["spinal cord", "brain"]),
    ("1. **solid**\n2. **liquid**\n3. **gas**", 3, ["solid", "liquid", "gas"]),
    ("(1) A (2) B", 2, ["A", "B"]),
    ("blue, green, ", 2, ["blue", "green"]),
    ("", 2, None),
    ("   ", None, None),
    ("<think>\n", 1, None),
    ("\\boxed{}", 1, None),
    ("The first blank is heat and the second blank is pressure.", 2, ["heat", "pressure"]),
    ('The missing word is "catalyst".', 1, ["catalyst"]),
    ("**Blank 1:** heat\n**Blank 2:** pressure", 2, ["heat", "pressure"]),
    ("The blanks: (a) heat (b) pressure", 2, ["heat", "pressure"]),
    ("heat / pressure", 2, ["heat", "pressure"]),
]


@pytest.mark.parametrize("response,n,expected", BLANK_CASES)
def test_extract_blanks(response, n, expected):
    assert extract_blanks(response, n) == expected


# ---------------------------------------------------------------------------
# Short answers with confidence (Video SimpleQA)
# ---------------------------------------------------------------------------

SHORT_ANSWER_CASES = [
    ('{"answer": "Eiffel Tower", "confidence_score": 90}', ("Eiffel Tower", 90.0)),
    ('{"answer": "Eiffel Tower", "confidence_score": 90.5}', ("Eiffel Tower", 90.5)),
    ('{"answer":"1969","confidence_score":75}', ("1969", 75.0)),
    ('{\n  "answer": "Golden Gate Bridge",\n  "confidence_score": 85\n}', ("Golden Gate Bridge", 85.0)),
    ('```json\n{"answer": "Mount Fuji", "confidence_score": 95}\n```', ("Mount Fuji", 95.0)),
    ('```\n{"answer": "Tokyo", "confidence_score": 60}\n```', ("Tokyo", 60.0)),
    ("{'answer': 'Louvre', 'confidence_score': 70}", ("Louvre", 70.0)),
    ('{"answer": "Nile", "confidence_score": 80,}', ("Nile", 80.0)),
    ('{"answer": "Nile", "confidence": 80}', ("Nile", 80.0)),
    ('{"answer": "Nile", "confidence_score": "85"}', ("Nile", 85.0)),
    ('{"answer": "Nile", "confidence_score": "85%"}', ("Nile", 85.0)),
    ('{"answer": "Nile", "confidence_score": 0}', ("Nile", 0.0)),
    ('{"answer": "Nile", "confidence_score": 100}', ("Nile", 100.0)),
    ('{"answer": "Nile", "confidence_score": 150}', ("Nile", None)),
    ('{"answer": "Nile", "confidence_score": -5}', ("Nile", None)),
    ('{"answer": "Nile", "confidence_score": "high"}', ("Nile", None)),
    ('{"answer": "Nile", "confidence_score": true}', ("Nile", None)),
    ('{"answer": "Nile", "confidence_score": null}', ("Nile", None)),
    ('{"answer": "Nile"}', ("Nile", None)),
    ('{"answer": 1969, "confidence_score": 70}', ("1969", 70.0)),
    ('{"answer": 3.5, "confidence_score": 70}', ("3.5", 70.0)),
    ('{"answer": "  Amazon River  ", "confidence_score": 88}', ("Amazon River", 88.0)),
    ('{"Answer": "Big Ben", "Confidence_Score": 77}', ("Big Ben", 77.0)),
    ('{"answer": "Rome", "confidence_score": 0.9}', ("Rome", 0.9)),
    (
        'Based on the landmarks in the video, here is my answer:\n{"answer": "Sydney Opera House", '
        '"confidence_score": 92}',
        ("Sydney Opera House", 92.0),
    ),
    (
        'The building has white sail-like roofs.\n\n```json\n{\n  "answer": "Sydney Opera House",\n'
        '  "confidence_score": 92\n}\n```\nI am fairly sure about this.',
        ("Sydney Opera House", 92.0),
    ),
    (
        '<think>The flag is red with a white cross... that is Switzerland. The city by the lake is '
        'Geneva.</think>\n{"answer": "Geneva", "confidence_score": 65}',
        ("Geneva", 65.0),
    ),
    (
        '<think>\nFormat should be {"answer": ..., "confidence_score": ...}. The bridge is the Tower '
        'Bridge.\n</think>\n\n{"answer": "Tower Bridge", "confidence_score": 93}',
        ("Tower Bridge", 93.0),
    ),
    ('<think>\nIt is Berlin. {"answer": "Berlin", "confidence_score": 70}\n', ("", None)),  # cut off
    ('{"answer": "He said \\"hello\\"", "confidence_score": 50}', ('He said "hello"', 50.0)),
    ('{"answer": "St. Peter\'s Basilica", "confidence_score": 81}', ("St. Peter's Basilica", 81.0)),
    ('{"answer": "São Paulo", "confidence_score": 66}', ("São Paulo", 66.0)),
    ('{"answer": "東京タワー", "confidence_score": 72}', ("東京タワー", 72.0)),
    ('{"answer": "red, white and blue", "confidence_score": 55}', ("red, white and blue", 55.0)),
    ('{"answer": "", "confidence_score": 10}', ("", 10.0)),
    ('{"answer": "Lincoln", "confidence_score": 90', ("Lincoln", 90.0)),  # truncated JSON
    ('{"answer": "The "Big" Apple", "confidence_score": 40}', ("The \"Big\" Apple", 40.0)),  # unescaped quotes
    ('{“answer”: “Venice”, “confidence_score”: 83}', ("Venice", 83.0)),  # smart quotes
    ('{"answer": "Oslo", "confidence_score": 60}\n{"answer": "Bergen", "confidence_score": 40}', ("Bergen", 40.0)),
    ('{"final_answer": "Madrid", "confidence": 71}', ("Madrid", 71.0)),
    ('{"answer": "Lisbon", "confidence_level": "90 %"}', ("Lisbon", 90.0)),
    ('{\'answer\': "Lyon", \'confidence_score\': 64,}', ("Lyon", 64.0)),
    ('{"answer": ["Thames"], "confidence_score": 58}', ("Thames", 58.0)),
    ('{"answer": "Kyoto", "confidence_score": NaN}', ("Kyoto", None)),
    ('{"answer": "Kyoto", "confidence_score": 1e3}', ("Kyoto", None)),
    # not JSON at all: the text itself is the answer
    ("Paris", ("Paris", None)),
    ('"Paris"', ("Paris", None)),
    ("  'Paris'  ", ("Paris", None)),
    ("The Eiffel Tower", ("The Eiffel Tower", None)),
    ("<think>Paris or Lyon? Paris.</think>\nParis", ("Paris", None)),
    ("<think>\nI believe it's Paris\n", ("", None)),  # cut off
    ("I cannot determine this from the video.", ("I cannot determine this from the video.", None)),
    ("", ("", None)),
    ("   ", ("", None)),
    ("{not json at all}", ("{not json at all}", None)),
    ('{"city": "Paris", "confidence_score": 90}', ('{"city": "Paris", "confidence_score": 90}', None)),
    ("```json\nParis\n```", ("Paris", None)),
    ("<answer>Paris</answer>", ("Paris", None)),
    ('Answer: {"answer": "Rome"}', ("Rome", None)),
    ('{"answer": "Ulm", "confidence_score": " 45 "}', ("Ulm", 45.0)),
    ('{"answer": "Ulm", "confidence_score": 45.0}', ("Ulm", 45.0)),
    # replies the fourth labelled set found (tests/data/judge_labels_final2/)
    ("**Answer:** I'm not able to tell from the clip.\n\n**Confidence:** 0%", ("I'm not able to tell from the clip.", 0.0)),
    ('{answer: "I have no idea.", confidence_score: 0}', ("I have no idea.", 0.0)),  # keys unquoted
    ('```json\n{"answer": "203 km/h" "confidence_score": 81}\n```', ("203 km/h", 81.0)),  # a comma missing
]


@pytest.mark.parametrize("response,expected", SHORT_ANSWER_CASES)
def test_extract_short_answer(response, expected):
    assert extract_short_answer(response) == expected


# ---------------------------------------------------------------------------
# strip_reasoning and last_boxed
# ---------------------------------------------------------------------------

STRIP_CASES = [
    ("<think>reasoning</think>answer", "answer"),
    ("<think>\nlong reasoning\n</think>\n\n  The answer is B.  ", "The answer is B."),
    ("<THINK>x</THINK> y", "y"),
    ("<thinking>a</thinking>b", "b"),
    ("<reasoning>a</reasoning>\nb", "b"),
    ("<think>a</think>b<think>c</think>d", "d"),  # keep only after the LAST close
    ("reasoning without an opening tag</think>\nC", "C"),
    ("<think>", ""),
    ("<think>\n  \n", ""),
    ("<think>unfinished reasoning that got cut off", ""),
    ("Sure.<think>unfinished", "Sure."),
    ("no tags here  ", "no tags here"),
    ("", ""),
    ("a < b and c > d", "a < b and c > d"),
    ("◁think▷x◁/think▷ y", "y"),
    ("<|begin_of_thought|>x<|end_of_thought|><|begin_of_solution|>B<|end_of_solution|>", "B"),
]


@pytest.mark.parametrize("text,expected", STRIP_CASES)
def test_strip_reasoning(text, expected):
    assert strip_reasoning(text) == expected


BOXED_CASES = [
    ("\\boxed{B}", "B"),
    ("x \\boxed{1} y \\boxed{2}", "2"),
    ("\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
    ("\\boxed{{a}{b}}", "{a}{b}"),
    ("\\boxed{\\text{C}}", "C"),
    ("\\boxed{\\textbf{D. text}}", "D. text"),
    ("\\boxed{\\mathrm{kg}}", "kg"),
    ("\\boxed{\\text{\\textbf{E}}}", "E"),
    ("$\\boxed{ 42 }$", "42"),
    ("\\fbox{A}", "A"),
    ("\\boxed {7}", "7"),
    ("\\boxed{\\{1, 2\\}}", "\\{1, 2\\}"),
    ("no box here", None),
    ("\\boxed{unclosed", None),
    ("\\boxed{3} then \\boxed{broken", "3"),
    ("\\boxed{}", ""),
]


@pytest.mark.parametrize("text,expected", BOXED_CASES)
def test_last_boxed(text, expected):
    assert last_boxed(text) == expected


# ---------------------------------------------------------------------------
# Robustness and speed
# ---------------------------------------------------------------------------

def test_none_and_non_string_inputs():
    assert extract_choice(None, LETTERS4) is None
    assert extract_choice("B", []) is None
    assert extract_number(None) is None
    assert extract_int_list(None) is None
    assert extract_blanks(None) is None
    assert extract_short_answer(None) == ("", None)
    assert strip_reasoning(None) == ""
    assert last_boxed(None) is None


@pytest.mark.timeout(60)  # a backtracking regex would hang here, not merely slow down
def test_pathological_inputs_terminate():
    # Inputs that would make a backtracking regex explode must stay linear.
    nasty = [
        "(" * 20000,
        "answer " * 5000,
        "1," * 20000,
        "\\boxed{" * 5000,
        "Step " * 5000 + "x",
        "a" * 50000,
        "- 1. " * 5000,
        "{" + '"answer": ' * 3000,
        "A. \n" * 5000,
        "3 - " * 5000,
    ]
    for s in nasty:
        assert extract_choice(s, LETTERS5, OPTIONS_KITCHEN) in (None, *LETTERS5)
        extract_number(s)
        extract_int_list(s)
        extract_blanks(s, 2)
        assert isinstance(extract_short_answer(s)[0], str)


def test_fuzz_never_raises_and_types_hold():
    # Mutations of every test response plus garbage must never raise, and
    # results must keep their documented types.
    import random

    rng = random.Random(1234)
    seeds = [c[0] for c in CHOICE_LETTER_CASES + CHOICE_DIGIT_CASES + NUMBER_CASES + INT_LIST_CASES]
    seeds += [c[0] for c in BLANK_CASES + SHORT_ANSWER_CASES]
    seeds += [
        "[" * 3000 + "]" * 3000,
        '{"answer": ' + "[" * 3000 + "]" * 3000 + "}",
        "[" + "9" * 5000 + "]",
        '{"answer": ' + "9" * 5000 + ', "confidence_score": ' + "9" * 5000 + "}",
        "\\boxed{" + "{" * 500 + "}" * 500 + "}",
        "1e999 1e-999 9" * 20,
        "\x00\ufeff\u202e<think>\u0130</THINK>İ answer is İ",
    ]
    alphabet = "AB (){}[]<>*_:.,;-−\\/\n\"'0123456789eE×^answer is think boxed option"
    for seed in list(seeds):
        for _ in range(3):
            chars = list(seed)
            for _ in range(rng.randint(1, 6)):
                pos = rng.randint(0, len(chars))
                chars[pos:pos + rng.randint(0, 3)] = rng.choice(alphabet)
            seeds.append("".join(chars))
    for _ in range(300):
        seeds.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200))))
    for text in seeds:
        c = extract_choice(text, LETTERS5, OPTIONS_KITCHEN)
        assert c is None or c in LETTERS5
        assert extract_choice(text, DIGITS5) in (None, *DIGITS5)
        v = extract_number(text)
        assert v is None or isinstance(v, float)
        li = extract_int_list(text)
        assert li is None or (li and all(isinstance(x, int) for x in li) and len(li) == len(set(li)))
        bl = extract_blanks(text, 2)
        # an empty string may hold a skipped blank's place, but not every place
        assert bl is None or (bl and all(isinstance(x, str) for x in bl) and any(bl))
        ans, conf = extract_short_answer(text)
        assert isinstance(ans, str) and (conf is None or 0.0 <= conf <= 100.0)
        assert isinstance(strip_reasoning(text), str)
        b = last_boxed(text)
        assert b is None or isinstance(b, str)


def _corpus(n):
    bases = [
        _R1_THINK + "The person picks up a knife.\n\n**Answer: B**",
        _LONG_ANALYSIS + "Therefore, the answer is C.",
        "The video shows a man in a kitchen. Option A mentions a garden, which is wrong. Option B "
        "says he cooks pasta, but I only see rice. Option C fits: he stirs rice in a pot. "
        "Option D is unrelated because no one is dancing.\n\nAnswer: C",
        "B. The man places the cup on the table, then walks to the window and opens it. "
        + "He looks outside for a while. " * 15,
    ]
    return [bases[i % len(bases)] + " " * (i % 7) for i in range(n)]


def test_choice_on_a_long_reasoning_corpus():
    # The speed of this corpus is measured in bench/score_speed.py; here, the answers.
    responses = _corpus(200)
    out = [extract_choice(r, LETTERS5) for r in responses]
    assert out[0] == "B" and out[1] == "C" and out[2] == "C" and out[3] == "B"


def test_skipped_blank_keeps_its_place():
    # "a; ; c": the model left the second blank empty; "c" still answers the third
    assert extract_blanks("\\boxed{sodium; ; 37 degrees}", 3) == ["sodium", "", "37 degrees"]
    assert extract_blanks("sodium, , 37 degrees", 3) == ["sodium", "", "37 degrees"]
    assert extract_blanks("\\boxed{sodium; chloride;}", 2) == ["sodium", "chloride"]


# ---------------------------------------------------------------------------
# Cut-off reasoning: no final answer unless the scoring option reads the trace
# ---------------------------------------------------------------------------

CUT_OFF_READ_CASES = [
    (lambda t: extract_choice(t, LETTERS5), "<think>\nA or D? The clock shows 3:15, so D.\n", "D"),
    (lambda t: extract_choice(t, DIGITS5), "<think>\nThe ball goes out. The answer is 5.\n", "5"),
    (extract_number, "<think>\nThe needle points at 7.5 on the scale, so the answer is 7.5 N.\n", 7.5),
    (extract_int_list, "<think>\nI see steps 5, 6 and 7, so the answer is 5, 6, 7.\n", [5, 6, 7]),
    (extract_short_answer, '<think>\nIt is Berlin. {"answer": "Berlin", "confidence_score": 70}\n',
     ("Berlin", 70.0)),
    (lambda t: extract_choice(t, LETTERS5), "<think>I think the answer might be C", "C"),
]


@pytest.mark.parametrize("extractor,response,expected", CUT_OFF_READ_CASES)
def test_cut_off_reasoning_is_no_answer_unless_read(extractor, response, expected):
    assert reasoning_cut_off(response)
    assert extractor(response) in (None, ("", None))
    assert extractor(read_cut_off_reasoning(response)) == expected


@pytest.mark.parametrize("response", [
    "<think>x</think>B", "B <think>unfinished", "The answer is B.", "", "<think>a</think>",
])
def test_not_cut_off(response):
    assert not reasoning_cut_off(response)
    assert read_cut_off_reasoning(response) == response


def test_closed_reasoning_with_nothing_after_is_still_read():
    # The model finished thinking; only the cut-off case has no final answer.
    assert extract_choice("<think>The cup is blue, so B.</think>", LETTERS5) == "B"


# ---------------------------------------------------------------------------
# Words that look like labels, notes after the answer, two labels, statements,
# other languages
# ---------------------------------------------------------------------------

LETTERS10 = list("ABCDEFGHIJ")

WORDS_NOT_LABELS_CASES = [
    ("I'm fairly sure it's C.", "C"),
    ("I'm not sure.", None),
    ("I'm sorry, but I can't view videos.", None),
    ("I’d say C.", "C"),
    ("I've watched it twice: H.", "H"),
    ("I can't tell from these frames.", None),
    ("Answer: B Note: C is also plausible.", "B"),
    ("The answer is B.\n\nNote: option C is also correct in some readings.", "B"),
    ("Answer: D\nP.S. A could also work if the clip were longer.", "D"),
    ("B is correct. C is also correct.", None),
    ("G and A are both correct.", None),
    ("Both G and A are correct.", None),
    ("A and I are both right.", None),
    ("I is correct.", "I"),  # "is", not "am": the label
    ("(I) is correct.", "I"),
    ("The answer is I.", "I"),
    ("B... wait, actually C.", "C"),
    ("My guess is F.", "F"),
]


@pytest.mark.parametrize("response,expected", WORDS_NOT_LABELS_CASES)
def test_choice_words_notes_and_pairs(response, expected):
    assert extract_choice(response, LETTERS10) == expected


STATEMENT_CASES = [
    ("Statement 2", "2"),
    ("Statement 4.", "4"),
    ("The correct statement is Statement 2.", "2"),
    ("The coach's feedback is statement 3.", "3"),
    ("Statement 5 is correct.", "5"),
    ("**Statement 1**", "1"),
    ("Option (3)", "3"),
]


@pytest.mark.parametrize("response,expected", STATEMENT_CASES)
def test_choice_statement_numbers(response, expected):
    assert extract_choice(response, DIGITS5) == expected


OTHER_LANGUAGE_CASES = [
    ("答案是B", "B"),
    ("答案：C", "C"),
    ("我选择B", "B"),
    ("正确答案是D。", "D"),
    ("根据视频，选A，因为他拿起了杯子。", "A"),
    ("选项B", "B"),
    ("答案是选项E", "E"),
    ("答えはBです。", "B"),
    ("正解：C", "C"),
    ("정답은 D입니다.", "D"),
    ("La respuesta es B.", "B"),
    ("La respuesta correcta es la C.", "C"),
    ("La réponse est D.", "D"),
    ("La bonne réponse est (A).", "A"),
    ("Die Antwort ist B.", "B"),
    ("Die richtige Antwort ist E.", "E"),
    ("A resposta correta é C.", "C"),
    ("La risposta è D.", "D"),
    ("Ответ: B", "B"),
]


@pytest.mark.parametrize("response,expected", OTHER_LANGUAGE_CASES)
def test_choice_other_languages(response, expected):
    assert extract_choice(response, LETTERS5) == expected


# ---------------------------------------------------------------------------
# Findings of the held-out corpus (tests/data/extraction_corpus/heldout.jsonl,
# written without seeing this code) and probes around them.  A wrong option is
# worse than None, so every doubtful response below must read as None.
# ---------------------------------------------------------------------------

TRUE_FALSE = ["True", "False"]

HELDOUT_FINDING_CASES = [
    # self-correction without a final marker: the label after "no," / "wait" / "sorry" wins
    ("Option 2. Wait — looking again at the release, the knees are fine; the real issue is the wrist. Option 3.",
     DIGITS5, None, "3"),
    ("The answer is 4... no, sorry, 1.", DIGITS5, None, "1"),
    ("The answer is B... no, sorry, D.", LETTERS4, None, "D"),
    ("The answer is B. Wait, no: D.", LETTERS4, None, "D"),
    ("B. Actually, no.", LETTERS4, None, None),  # retracted, nothing given instead
    ("I initially thought statement 5, but on reflection the feet are square. The correct one is statement 1.",
     DIGITS5, None, "1"),
    # checklists are read by their verdict words / marks, not by their first line
    ("A - incorrect\nB - correct\nC - incorrect\nD - incorrect", LETTERS4, None, "B"),
    ("A: wrong. B: right. C: wrong. D: wrong.", LETTERS4, None, "B"),
    ("A ❌\nB ❌\nC ✅\nD ❌", LETTERS4, None, "C"),
    ("| Statement | Matches |\n|---|---|\n| 1 | ✗ |\n| 2 | ✗ |\n| 3 | ✓ |\n| 4 | ✗ |", DIGITS5, None, "3"),
    ("Option A: wrong\nOption B: wrong\nOption C: right\nOption D: wrong", LETTERS4, None, "C"),
    ("A - correct\nB - correct\nC - wrong", LETTERS4, None, None),  # two ticked
    # a box that holds no label, or two boxes given together
    ("\\boxed{N/A}", LETTERS4, None, None),
    ("\\boxed{\\text{Cannot be determined}}", LETTERS10, None, None),
    ("The tool could be \\boxed{A} or \\boxed{B}.", LETTERS4, None, None),
    # two labels given together, even when an option text matches
    ("Both A and B are true statements.", ["A", "B"], TRUE_FALSE, None),
    # "no answer" said after a marker or up front
    ("Answer: N/A", LETTERS4, None, None),
    ("Answer: A is not correct.", LETTERS4, None, None),
    ("Answer: A lot of information is missing.", LETTERS10, None, None),
    ("None of the above. A is closest but wrong.", LETTERS4, None, None),
    ("(A) is wrong.", LETTERS4, None, None),
    ("I don't think C.", LETTERS4, None, None),
    # hedges phrased as questions
    ("Could it be A?", LETTERS4, None, None),
    ("Is the answer A?", LETTERS4, None, None),
    ("not sure, A?", LETTERS4, None, None),
    ("A? B?", LETTERS4, None, None),
    # ExAct conclusions after other options were discussed
    ("Option 2 is bad.\n\nThe most accurate feedback is Option 3", DIGITS5, None, "3"),
    ("Option 2 is about knee bend, so no.\n\nOption 3 provides the most accurate feedback.", DIGITS5, None, "3"),
    ("Option 2 is about knee bend, so no.\n\nI believe Option 3.", DIGITS5, None, "3"),
    ("Option 2 is about knee bend, so no.\n\nI think Option 3.", DIGITS5, None, "3"),
    ("Option 2 is about knee bend, so no.\n\nOption 3 would be the most accurate.", DIGITS5, None, "3"),
    ("Option B shows a knife, so no.\n\nThe best fit is C.", LETTERS4, None, "C"),
    ("Option B shows a knife, so no.\n\nThe best match is C.", LETTERS4, None, "C"),
    ("Option B shows a knife, so no.\n\nC it is.", LETTERS4, None, "C"),
    ("The best fit is either B or C.", LETTERS4, None, None),
    ("The coach's feedback corresponds to statement number 3.", DIGITS5, None, "3"),
    ("Best match → 3", DIGITS5, None, "3"),
    ("Option 4 is the correct feedback. The arms stay pinned; the plant foot (1), laces (2), lean (3) "
     "and looking up (5) are all fine.", DIGITS5, None, "4"),
    # ordinals and number words tied to option / statement / one
    ("Statement five best matches the coach's feedback.", DIGITS5, None, "5"),
    ("Option three", DIGITS5, None, "3"),
    ("the third option", LETTERS4, None, "C"),
    ("The second statement.", DIGITS5, None, "2"),
    ("The fifth one.", DIGITS5, None, "5"),
    ("It's the fourth.", LETTERS5, None, "D"),
    ("The first statement is correct.", DIGITS5, None, "1"),
    ("The last option.", LETTERS4, None, "D"),
    ("第三个选项", DIGITS5, None, "3"),
    ("The first option is wrong.", LETTERS4, None, None),
    ("The first option mentions a fridge, which never appears.", LETTERS4, None, None),
    ("The sixth option.", LETTERS4, None, None),  # no such option
    # bare numbers, JSON with other keys, other scripts
    ("Number 1.", DIGITS5, None, "1"),
    ("Okay. 2", DIGITS5, None, "2"),
    ('{"option": "2", "reason": "knees not bent enough"}', DIGITS5, None, "2"),
    ('```json\n{"selected_option": 4}\n```', DIGITS5, None, "4"),
    ('{"letter": "d", "confidence": 0.7}', LETTERS4, None, "D"),
    ('{"options_considered": "A", "final": "C"}', LETTERS4, None, "C"),
    ('{"answer": "B", "choice": "C"}', LETTERS4, None, "B"),  # "answer" outranks
    ('{"choice": "B", "letter": "C"}', LETTERS4, None, None),
    ("最准确的反馈是选项 2。", DIGITS5, None, "2"),
    ("答案：Ｂ", LETTERS4, None, "B"),
]


@pytest.mark.parametrize("response,labels,options,expected", HELDOUT_FINDING_CASES)
def test_choice_heldout_findings(response, labels, options, expected):
    assert extract_choice(response, labels, options) == expected


# Shapes the second corpus found (tests/data/extraction_corpus_v2/), one per rule.
STEPS6 = [str(i) for i in range(1, 7)]  # ExpVid completeness options as released: "A: 1 B: 2 ..."
STEP_TEXT = ["Step 2: Thaw the reagents", "Step 4: Mix", "Step 7: Add template", "Step 9: Spin down"]
BIG_O = ["O(n)", "O(n log n)", "O(n²)", "O(1)"]
DIGITS5 = ["1", "2", "3", "4", "5"]
SECOND_CORPUS_CASES = [
    ("\\boxed{3}", LETTERS5 + ["F"], STEPS6, "C"),  # a step number for its option
    ("Answer: Step 4", LETTERS5 + ["F"], STEPS6, "D"),
    ("\\boxed{Step 9}", ["A", "B", "C", "D"], STEP_TEXT, "D"),
    ("\\boxed{8}", ["A", "B", "C", "D"], STEP_TEXT, None),  # no option is step 8
    ("\\boxed{3}", ["A", "B", "C", "D"], ["3 mL", "5 mL", "2 mL", "4 mL"], None),  # values, not step numbers
    ("Final answer: O(n log² n)", ["A", "B", "C", "D"], BIG_O, None),  # "O(n)" is not inside it
    ("so the recurrence is T(n) = T(n-1) + O(n).\n\nO(n²)", ["A", "B", "C", "D"], BIG_O, "C"),
    ("The acceleration is 4.0 m/s^2.", ["A", "B", "C"], ["2.0 m/s^2", "4.0 m/s^2", "14.0 m/s^2"], "B"),
    ("The result is e/2.", ["A", "B", "C"], ["e", "2", "e/4"], None),
    ("The tubes were filled to equal volumes.", ["A", "B"],
     ["Because the lid would not close.", "Because the tubes were filled to equal volumes."], "B"),
    ("Final: 2", DIGITS5, None, "2"),
    ("Statement (1-5): 3", DIGITS5, None, "3"),
    ("Two.", DIGITS5, None, "2"),
    ("Two.", ["A", "B", "C"], None, None),  # a number word is no letter
    ("The 4th one.", LETTERS5, None, "D"),
    ("2️⃣", DIGITS5, None, "2"),
    ("应该是选项5。", DIGITS5, None, "5"),
    ("我选择第一个。", DIGITS5, None, "1"),
    ("C'est la deuxième option.", DIGITS5, None, "2"),
    ("La opción 5.", DIGITS5, None, "5"),
    ("1 is the answer", DIGITS5, None, "1"),
    ("4 is the right one.", DIGITS5, None, "4"),
    ("Between D and I, I fits better.", list("ABCDEFGHIJ"), None, "I"),
    ("G is the most likely answer, although C is also plausible.", list("ABCDEFGH"), None, "G"),
    ("Most likely D; E can't be ruled out entirely.", LETTERS5, None, "D"),
    ("Eliminating 1, 3, 4 and 5 leaves 2.", DIGITS5, None, "2"),
    ("The coach's feedback is option 4.", DIGITS5, None, "4"),
    ("I would not choose B.", LETTERS5, None, None),
    ("It isn't E or D.", LETTERS5, None, None),
    ("Would B be right?", LETTERS5, None, None),
    ("B. Sorry, I meant D.", LETTERS5, None, "D"),
    ("I'll say E. Hmm, on reflection E doesn't hold up. Changing my answer to A.", LETTERS5, None, "A"),
    ("(C) Adiabatic is steeper, so no. Option B has no basis. That gives A. So I'll go with A.", LETTERS5, None, "A"),
    ("100% would need T = 0, so (I) is impossible.\n\nC", list("ABCDEFGHI"), None, "C"),
    ("❌ A: the battery\n✅ B: the phone was wet\n❌ C: the screws", ["A", "B", "C"], None, "B"),
    ("A. the gym was closing → no\nB. the barbell needed plates → yes\nC. the phone rang → no", ["A", "B", "C"], None,
     "B"),
    ("Let me verify each option:\n1 - no\n2 - incorrect\n3 - correct", ["1", "2", "3"], None, "3"),
    # cut off: in the middle of a sentence, or while walking through the options
    ("E can be ruled out. This matches option C (25), which means", LETTERS5, None, None),
    ("The slide lists the definitions used here. Option F has no basis. That gives e, which is option B. "
     "On the other hand, in the third frame", list("ABCDEF"), None, None),
    ("Now the options:\nA. Because it rained. — doesn't match\nB. Because the soil was tested.", ["A", "B", "C"],
     ["Because it rained.", "Because the soil was tested.", "Because of wind."], None),
    ("(D) The man opens the car door and gets in", LETTERS5, None, "D"),  # an option may end on "in"
]


@pytest.mark.parametrize("response,labels,options,expected", SECOND_CORPUS_CASES)
def test_choice_second_corpus_shapes(response, labels, options, expected):
    assert extract_choice(response, labels, options) == expected


# Shapes the third corpus found (tests/data/extraction_corpus_holdout/).
THIRD_CORPUS_CASES = [
    ('As for option (G), "The scale stopped working" - there is no sign of that. Option C is the one supported.\n\nC',
     list("ABCDEFGH"), ["Because the lid was open.", "Because it rained.", "Because of the timer.", "d", "e", "f",
                        "The scale stopped working.", "h"], "C"),  # "right before this" is no verdict
    ("I can rule out B.", ["A", "B", "C", "D"], None, None),
    ("It rules out A, B and D, leaving C.", ["A", "B", "C", "D"], None, "C"),
    ("Option three.", ["A", "B", "C", "D", "E"], ["Step 2: a", "Step 3: b", "Step 5: c", "Step 6: d", "Step 7: e"], "C"),
    ("La sexta opción.", list("ABCDEFGH"), None, "F"),
    ("Reply: 5", DIGITS5, None, "5"),
    ("2 or 5? Looking again at the last frames, 5.", DIGITS5, None, "5"),
    ("The first statement is the coach's feedback.", DIGITS5, None, "1"),
    ("Feedback 3", DIGITS5, None, "3"),
    ('{"option_number": 3, "reason": "the ball drops"}', DIGITS5, None, "3"),
    ("教练给出的反馈是选项3。", DIGITS5, None, "3"),
    ("The missing step is step 4.", ["A", "B", "C"], ["Step 2: Add", "Step 4: Mix", "Step 5: Fill"], "B"),
    ("Answer: C or maybe G", list("ABCDEFGH"), None, None),
    ("so I = 2πσ R⁴/4. Substituting σ gives", list("ABCDEFGHIJ"), None, None),
    ("A droplet was left hanging on the tip after dispensing.", ["A", "B"],
     ["A droplet was left hanging on the tip after dispensing in the previous segment.", "The tip was dirty."], "A"),
]


@pytest.mark.parametrize("response,labels,options,expected", THIRD_CORPUS_CASES)
def test_choice_third_corpus_shapes(response, labels, options, expected):
    assert extract_choice(response, labels, options) == expected


# Shapes the fourth corpus found (tests/data/extraction_corpus_final/).
FOURTH_CORPUS_CASES = [
    ("B\n\nReasoning:\nC: irrelevant to this step.\nH: not supported by the video.", list("ABCDEFGH"), None, "B"),
    ("- E: this is the actual purpose.\n- F: doesn't explain the action.\n\n→ E", list("ABCDEFGH"), None, "E"),
    ("Only one option is consistent with this.\n\nSo it must be A.", list("ABCD"), None, "A"),
    ("That leaves H as the best fit.", list("ABCDEFGH"), None, "H"),
    ("Putting this together, G is the one that fits.", list("ABCDEFGH"), None, "G"),
    ("Having gone through all of them.\n\nMy pick is A.", list("ABCD"), None, "A"),
    ("Possibly C or B; if I have to pick one, B.", list("ABCD"), None, "B"),
    ("3 is tempting, but 2 matches the video better.", DIGITS5, None, "2"),
    ("4 is what the coach actually says.", DIGITS5, None, "4"),
    ("Answer: F (Because the egg is cold.)", list("ABCDEF"), ["Because the egg is cold.", "b", "c", "d", "e", "f"], None),
    ("C. Elastic", list("ABCDE"), ["Perfectly elastic", "Perfectly inelastic", "Unit elastic", "Elastic", "Inelastic"],
     None),  # the label says C, the text is D's
    ("| C | Because of the shell. | wrong |\n| D | Because of the flat surface. | correct |", list("ABCD"), None, "D"),
    ("[ ] A. Petri dish\n[x] B. tube\n[ ] C. flask", list("ABC"), None, "B"),
    ("D'après la vidéo, c'est ce qui explique l'action. Je choisis donc l'option H.", list("ABCDEFGH"), None, "H"),
    ("Most likely: F. Next: C. Least likely: G.", list("ABCDEFGH"), None, "F"),
    ("The correct answer is option 8.", list("ABCDEFGH"), None, "H"),
    ("The answer is E. The answer is E. The answer is", list("ABCDE"), None, "E"),  # cut off after its answer
    ("B, C and D don't match the video. By elimination: A.", list("ABCD"), None, "A"),
    ("* Observation: the coach counts.\n* Conclusion: 3", DIGITS5, None, "3"),
    ("Q: Which operation comes next?\nA: D", list("ABCD"), None, "D"),
    ("A. B. C. D.", list("ABCD"), None, None),
    ("I can rule out B and C.", list("ABCD"), None, None),
    ("教练给出的反馈是第 1 条。", DIGITS5, None, "1"),
    ("実施されていないのはステップ1です。", list("ABCDE"), STEPS6[:5], "A"),
    ("动画ではコーチが指摘しているので、2 が正解です。", DIGITS5, None, "2"),
    ("37 °C — the water bath display reads 37.0.", list("ABCD"), ["25 °C", "37 °C", "56 °C", "4 °C"], "B"),
    ("Step 1 (Flame the loop) ✗\nStep 2 (Dip the loop) ✓\nStep 3 (Streak the plate) ✓", list("ABC"), STEPS6[:3], None),
    ("Let me go through the options.\n\nA. Pasteur pipette: not seen.\nC. Graduated cylinder: no.\nD. Micropipette: this is",
     list("ABCD"), ["Pasteur pipette", "Serological pipette", "Graduated cylinder", "Micropipette"], None),
]


@pytest.mark.parametrize("response,labels,options,expected", FOURTH_CORPUS_CASES)
def test_choice_fourth_corpus_shapes(response, labels, options, expected):
    assert extract_choice(response, labels, options) == expected


# Shapes the fifth corpus found (tests/data/extraction_corpus_fresh/).
FIFTH_CORPUS_CASES = [
    ("盖湿毛巾是为了防止面团表面变干，第二个选项。", list("ABCD"), None, "B"),
    ("Die vierte Antwort: Das Rad würde sich frei drehen.", list("ABCDEFGH"), None, "D"),
    ("La sexta: el líquido ayuda a que las cuchillas giren.", list("ABCDEFGH"), None, "F"),
    ("The first option mentions a fridge, which never appears.", LETTERS4, None, None),  # still no answer
    ("The third step wasn't carried out.", list("ABCDE"), STEPS6[:5], "C"),
    ("Der fünfte Schritt fehlt.", list("ABCDEF"), STEPS6, "E"),
    ("The person loosens them while the tire grips the ground — D.", list("ABCDEFGH"), None, "D"),
    ("The player keeps the ball low until the last step (4).", DIGITS5, None, "4"),
    ("Answer: 2. Although it might also be 4. I'm not sure which one is correct.", DIGITS5, None, None),
    ("Answer: 2\nAnswer: 4", DIGITS5, None, None),
    ("**A**\n\n**C**", LETTERS4, None, None),
    ('Is it "Strum from the wrist, not the whole arm"?', DIGITS5, None, None),
    ("Either B or C — the chart is hard to read.", LETTERS4, None, None),
    ("It is not a price floor, since the price is set below equilibrium.", LETTERS4,
     ["Price floor", "Price ceiling", "Tax", "Subsidy"], None),
    ("A Qubit fluorometer is used to measure the concentration.", LETTERS4,
     ["NanoDrop", "Plate reader", "pH meter", "Balance"], None),
    ('{"current": "1.5 A"}', LETTERS4, ["0.5 A", "1.0 A", "1.5 A", "2.0 A"], "C"),
    ("Answer: B (step 3, shaving the area, was skipped)", list("ABCDEF"), STEPS6, None),  # B is step 2
    ("The second step (C) is missing.", list("ABCDEF"), STEPS6, None),
    ("Using KCL: I3 = 2.5 − 1.5 = 1.0 A.\nAnswer: D", LETTERS4, ["0.5 A", "1.0 A", "1.5 A", "2.0 A"], None),
    ("D: Make sure the valve stem is straight.", DIGITS5, ["a b c", "d e f", "g h i", "j k l",
                                                          "Make sure the valve stem is straight."], None),
    ("E. Slow down your dribble.", DIGITS5, ["a b c", "d e f", "g h i", "j k l", "Slow down your dribble."], "5"),
    ("∫₀¹ x dx = 1/2\n\n\\boxed{\\frac{1}{2}}", LETTERS4, ["1/3", "1/2", "2/3", "1"], "B"),
    ("$$\\boxed{I = \\tfrac{1}{2}MR^2}$$", LETTERS4, ["MR^2", "(1/2)MR^2", "(2/5)MR^2", "(2/3)MR^2"], "B"),
    ("F (60 cm). With f = 20 cm: 1/d_i = 1/60, so d_i = 60 cm.", list("ABCDEF"),
     ["10 cm", "15 cm", "20 cm", "30 cm", "40 cm", "60 cm"], "F"),
    ("~~3~~ 1 — I misread the first part.", DIGITS5, None, "1"),
    ("It's between 2 and 3. The coach says toes, so 3 is my answer.", DIGITS5, None, "3"),
    ("My first instinct is 1 or 4. Looking at the wrist, I'll commit to 1.", DIGITS5, None, "1"),
    ("This one is ambiguous. Her later comment tips it though. I'll answer 5.", DIGITS5, None, "5"),
]

# found by the sixth corpus (tests/data/extraction_corpus_fresh2/)
SIXTH_CORPUS_CASES = [
    ("Answer: Patella (C)", LETTERS4, ["Femur", "Tibia", "Fibula", "Patella"], None),  # Patella is D
    ("The answer is C₂H₄ (option D).", LETTERS4, ["CH₄", "C₂H₆", "C₂H₄", "C₃H₈"], None),
    ("The new rate is 4 M/s, i.e. option F.", list("ABCDEFGH"),
     ["0.5 M/s", "1.0 M/s", "2.0 M/s", "4.0 M/s", "0.25 M/s", "8.0 M/s", "1.5 M/s", "3.0 M/s"], None),
    ('{"answer": "C", "value": "0.05"}', LETTERS4, ["0.05", "0.01", "0.025", "0.10"], None),
    ("B. 3", list("ABCDE"), STEPS6[:5], None),  # B is step 2
    ("A and B, since the sample is first in a Falcon tube.", LETTERS4, None, None),
    ("Answer: 5. On second thought, the keeper is not diving at all. Changing to 2.", DIGITS5, None, "2"),
    ("Going through each:\n1. Depth is fine.\n2. Recoil is not.\n3. Arms are straight.\n\n"
     "So the feedback was number 2.", DIGITS5, None, "2"),
    ("For a two-tailed test at α = 0.05, each tail holds 0.025. Therefore the answer is C.", LETTERS4,
     ["0.05", "0.01", "0.025", "0.10"], "C"),
    ("C2H6", LETTERS4, ["CH₄", "C₂H₆", "C₂H₄", "C₃H₈"], "B"),
    ("A competitive antagonist shifts the curve right. A non-competitive antagonist, by contrast,", LETTERS4,
     ["Competitive antagonist", "Non-competitive antagonist", "Partial agonist", "Inverse agonist"], None),
    ("G is the reason. A might seem plausible, but B and D are side effects at best.", list("ABCDEFGH"), None, "G"),
    ("**Step 3 was not performed.**\n\nThe fur is never removed before the incision.", list("ABCDEF"), STEPS6, "C"),
    ("It's either F or G. The cart starts at 2 m/s, so v = 14 m/s. G.", list("ABCDEFGHIJ"), None, "G"),
    ("The coach's only comment is about the take-off point, which fits 5.", DIGITS5, None, "5"),
    ("教练的反馈是：膝盖保持弯曲。选项 3。", DIGITS5, None, "3"),
    ('{"feedback_option": 2}', DIGITS5, None, "2"),
    # and by the seventh (tests/data/extraction_corpus_fresh3/)
    ("I can tell you it isn't D (sonicator probe), but the rest are hard to distinguish.", LETTERS4,
     ["Dounce homogenizer", "mortar and pestle", "bead beater tube", "sonicator probe"], None),
    ("It can't be D.", LETTERS4, None, None),
    ("Option 1 is definitely wrong.", DIGITS5, None, None),
    ("C and B are wrong.", LETTERS4, None, None),
    ("wait 10 minutes after injection", list("ABCDEFGHIJ"), [str(i) for i in range(1, 11)], None),
    ("The step not performed is 4.", list("ABCDE"), STEPS6[:5], "D"),
    ("The correct statements are 1,2,4.", list("ABCD"),
     ["Statement 1,2", "Statement 1,3", "Statement 2,4", "Statement 1,2,4"], "D"),
    ("Statements 1 and 3 are correct.", list("ABCD"),
     ["Statement 1,2", "Statement 1,3", "Statement 2,4", "Statement 1,2,4"], "B"),
    ("He thinks his serve was in but the line judge called it out.", list("ABCDE"),
     ["Because his serve was called out although it looked in", "Because the crowd was too noisy",
      "Because his opponent took too long between points", "Because he was given a time violation",
      "Because the ball boy handed him the wrong towel"], "A"),
    ("It isn't the serve; the crowd was loud.", list("ABCDE"),  # a negation: no paraphrase is read
     ["Because his serve was called out although it looked in", "Because the crowd was too noisy",
      "Because his opponent took too long between points", "Because he was given a time violation",
      "Because the ball boy handed him the wrong towel"], None),
    ("Let me match each step to the footage. Step 1 (fill the beaker) — visible. Step 2 (add the stir bar) — "
     "yes, visible. Step 3 (add the alginate) — visible. Step 4", list("ABCDE"), STEPS6[:5], None),
    ("Counting the pellets, the closest would be B (8 pellets), it could also be C.", LETTERS4, None, None),
    ("I'd say the feedback in Option 2 or 5 is accurate, but the video is hard to read.", DIGITS5, None, None),
    ("Option 2 or Option 5. I'd lean slightly toward 2.", DIGITS5, None, "2"),
    ("正解は選択肢Hです。", list("ABCDEFGH"), None, "H"),
    ("オプション1が最も正確です。", DIGITS5, None, "1"),
    ("第五个选项最准确。", DIGITS5, None, "5"),
    ("La quatrième option est la plus précise.", DIGITS5, None, "4"),
    ("La opción correcta es la tercera: golpea el balón con el interior del pie.", DIGITS5, None, "3"),
    ("The first feedback statement is the most accurate.", DIGITS5, None, "1"),
    ("✅ 4️⃣", DIGITS5, None, "4"),
    ("The guitarist wraps the thumb over the top of the neck. Five.", DIGITS5, None, "5"),
    # and by the eighth (tests/data/extraction_corpus_fresh4/)
    ("(1-5)", DIGITS5, None, None),  # the prompt's range echoed
    ("It's hard to tell from the camera angle. Option 1 or 4 could both be right.", DIGITS5, None, None),
    ("\\boxed{C}\n\n(I initially considered \\boxed{A}, since 37 °C is usual, but the display reads 65.)", LETTERS4,
     ["37 °C", "4 °C", "65 °C", "95 °C"], "C"),
    ("The slide shows the formula:\n\n$$PV = \\frac{C}{r - g}$$\n\nwhere C is the first cash flow.", LETTERS4,
     ["PV = C / (r − g)", "PV = C / (r + g)", "PV = C × (1 + g) / r", "PV = C / r"], "A"),
    ("M = 5 × 36 / 4 = 45 kN·m... wait, that is for a point load. With wL²/8: M ≈ 26.4 kN·m.", LETTERS4,
     ["18 kN·m", "22.5 kN·m", "27 kN·m", "45 kN·m"], None),
    ("Statements 1 and 3 are true; statements 2 and 4 contradict the lecture.", list("ABCD"),
     ["Statement 1,2", "Statement 1,3", "Statement 2,4", "Statement 1,2,4"], "B"),
    ("The determinant is -2", LETTERS4, ["-2", "0", "2", "4"], "A"),
]


@pytest.mark.parametrize("response,labels,options,expected", SIXTH_CORPUS_CASES)
def test_choice_sixth_corpus_shapes(response, labels, options, expected):
    assert extract_choice(response, labels, options) == expected


@pytest.mark.parametrize("response,labels,options,expected", FIFTH_CORPUS_CASES)
def test_choice_fifth_corpus_shapes(response, labels, options, expected):
    assert extract_choice(response, labels, options) == expected


# Shapes the readers met after the eighth corpus: values for value options, numbers named
# in other languages, Cyrillic capitals for Latin labels, a closing "— **option 3**".
VOLUMES = ["500 µL", "50 µL", "5 mL", "0.5 µL"]
MONEY = ["$1,240", "$2,370", "-$860", "$3,105", "$0"]
VALUE_AND_LANGUAGE_CASES = [
    ("500 microliters", LETTERS4, VOLUMES, "A"),
    ("The volume drawn up is 0.5 mL.", LETTERS4, VOLUMES, "A"),  # converted
    ("5 mL", LETTERS4, VOLUMES, "C"),
    ("The heat block is set to 95 degrees Celsius.", LETTERS4, ["37 °C", "4 °C", "65 °C", "95 °C"], "D"),
    ("7.5 ohms", list("ABCDE"), ["2 Ω", "3 Ω", "5 Ω", "7.5 Ω", "8 Ω"], "D"),
    ("The board says K = 1.8e-5.", LETTERS4, ["1.8 × 10^-5", "1.8 × 10^-4", "4.5 × 10^-3", "6.2 × 10^-8"], "A"),
    ("The NPV comes out to negative 860 dollars.", list("ABCDE"), MONEY, "C"),
    ("$\\boxed{\\$3{,}105}$", list("ABCDE"), MONEY, "D"),
    ("6/36", LETTERS4, ["1/6", "1/3", "1/2", "2/3"], "A"),
    ("The juggler keeps 4 balls in the air.", LETTERS4, ["Three", "Four", "Five", "Six"], "B"),
    # values that name no one option: none
    ("Either 50 or 5,000 µL.", LETTERS4, VOLUMES, None),
    ("M = 5 × 36 / 4 = 45 kN·m", LETTERS4, ["18 kN·m", "22.5 kN·m", "27 kN·m", "45 kN·m"], "D"),
    ("It is 45.", LETTERS4, ["18 kN·m", "22.5 kN·m", "27 kN·m", "45 kN·m"], "D"),
    ("The rate is 12 mL per minute.", LETTERS4, VOLUMES, None),
    # a label whose short reply gives another option's value: which one is meant?
    ("C — the integral evaluates to 1/2.", LETTERS4, ["1/3", "1/2", "2/3", "1"], None),
    # numbers in other languages and scripts
    ("La opción cuatro.", DIGITS5, None, "4"),
    ("Option trois", DIGITS5, None, "3"),
    ("Die richtige Antwort ist drei.", DIGITS5, None, "3"),
    ("The answer is five.", DIGITS5, None, "5"),
    ("The answer is a clear one.", DIGITS5, None, None),
    ("Вариант 2", DIGITS5, None, "2"),
    ("2番", DIGITS5, None, "2"),
    ("答えは四番です。", DIGITS5, None, "4"),
    ("옵션 2", DIGITS5, None, "2"),
    ("세 번째 옵션입니다.", DIGITS5, None, "3"),
    ("Ответ: В", list("ABCDEFGH"), None, "B"),
    ("Ответ: С (барокко)", LETTERS4, None, "C"),
    ("В видео показано, как смешивают реактивы.", LETTERS4, None, None),  # "В" the preposition
    ("**Conclusion:** each breath should last about one second — **option 3**.", DIGITS5, None, "3"),
]


@pytest.mark.parametrize("response,labels,options,expected", VALUE_AND_LANGUAGE_CASES)
def test_choice_values_and_other_languages(response, labels, options, expected):
    assert extract_choice(response, labels, options) == expected


# Shapes read since the eleventh to fourteenth corpora (tests/data/extraction_corpus_fresh7-10):
# (response, labels, options, expected)
LATER_SHAPES = [
    ("Answer: F\n\nReasoning: it matches H better.\n\nFinal answer: H", LETTERS5 + ["F", "G", "H"], None, "H"),
    ("answer is d because this is a distractor for the others", LETTERS4, None, "D"),
    ("i'd say it's number 4 tbh", DIGITS5, None, "4"),
    ("Only 2 survives, so 2 it is.", DIGITS5, None, "2"),
    ("Option C doesn't fit.\nI don't think D is right; it conflicts.\nOnly B remains.", LETTERS5, None, "B"),
    ("F? No — looking again at the footage, it has to be D.", LETTERS5 + ["F"], None, "D"),
    ("Nicht A, sondern C.", LETTERS4, None, "C"),
    ("Ce n'est pas E. Je choisis C.", LETTERS5, None, "C"),
    ("Berdasarkan video, opsi D salah. Jawaban yang benar adalah B.", LETTERS5, None, "B"),
    ("वीडियो के अनुसार विकल्प D सही है।", LETTERS5, None, "D"),
    ("<think>\nA could work. But no.\nTherefore, the final answer is C.", LETTERS5, None, "C"),
    # a long reply cut off before deciding reads as none
    ("Let me go through the options. Option A says \"4 °C\" — not used here. Option C says \"37", LETTERS4,
     ["4 °C", "25 °C", "37 °C", "65 °C"], None),
    ("Initial impression: probably C. Let me verify by re-examining the procedure shown. In the first", LETTERS4,
     None, None),
    # the amount a reply closes on, in any unit; in the option's own unit only exactly
    ("P = 0.20 × 1000 W/m² × 2 m² = 0.4 kW", LETTERS4, ["200 W", "400 W", "2000 W", "100 W"], "B"),
    ("In the video the timer is set to 90:00 at 100 V. So the result is 5400 s.", LETTERS4,
     ["15 min", "30 min", "45 min", "90 min"], "D"),
    ("R_ab ≈ 4.8 Ω", LETTERS5, ["2 Ω", "3 Ω", "4 Ω", "5 Ω", "6 Ω"], None),
    ("The pipette is set to 10 or 20 µL; the display is too small to read.", LETTERS4,
     ["25 µL", "10 µL", "5 µL", "20 µL"], None),
    # bare step numbers: "2" is step 2 (A) or the second option (B)
    ("The answer is 2.", LETTERS4, ["Step 2", "Step 4", "Step 6", "Step 1"], None),
    ("The answer is Step 2.", LETTERS4, ["Step 2", "Step 4", "Step 6", "Step 1"], "A"),
    ("Let's think step by step. The answer is 2.", LETTERS4, ["Step 2", "Step 4", "Step 6", "Step 1"], None),
    # what these rules must not read (a second read of them found each)
    ("P = 2 × 300 W = 600 W.", LETTERS4, ["0.5 kW", "1 kW", "2 kW", "4 kW"], None),
    ("4800 mΩ", LETTERS4, ["2 Ω", "3 Ω", "4 Ω", "5 Ω"], None),
    ("The sum is 10 s plus 20 s, giving 30 s total, which exceeds the 20 s limit.", LETTERS4,
     ["10 s", "20 s", "35 s", "40 s"], None),
    ("The answer is \\boxed{3}.", LETTERS4, ["10%", "3%", "25%", "50%"], None),
    ("D가 정답이 아닙니다.", LETTERS4, None, None),
    ("This is the number one concern in this step.", DIGITS5, None, None),
    ("A given sample is heated to 90 degrees.", LETTERS4, None, None),
    ("v = 2 + 3·4 = 14 m/s, so the answer is \\boxed{C}.", LETTERS4, ["2 m/s", "4 m/s", "12 m/s", "14 m/s"], None),
    ("My final pick is c", LETTERS4, None, "C"),
    ("I think d", LETTERS4, None, "D"),
]


@pytest.mark.parametrize("response,labels,options,expected", LATER_SHAPES)
def test_later_shapes(response, labels, options, expected):
    assert extract_choice(response, labels, options) == expected


# Shapes read since the fifteenth to nineteenth corpora (tests/data/extraction_corpus_fresh11-15)
LETTERS8 = LETTERS5 + ["F", "G", "H"]
ROMAN = ["I only", "I and II only", "I and III only", "II and III only", "I, II and III"]
FRESHER_SHAPES = [
    # a checklist's heading is no answer marker; its ticked box or cross marks say
    ("Selected:\n- [ ] A. 37 °C\n- [ ] B. 42 °C\n- [x] C. 65 °C\n- [ ] D. 95 °C", LETTERS4,
     ["37 °C", "42 °C", "65 °C", "95 °C"], "C"),
    ("Let's go option by option:\n\n- A ❌ contradicts the video\n- **B** ✅ the panel shows it\n- C ❌ ruled out\n\n→ **B**",
     LETTERS4, None, "B"),
    ("A ✓ | B ✗ | C ✗ | D ✗", LETTERS4, None, "A"),
    ("1 ✗  2 ✓  3 ✗  4 ✗  5 ✗", DIGITS5, None, "2"),
    ("**A** and **D**", LETTERS4, None, None),
    # cut off walking through the options
    ("First, let me identify what is being asked.\n\nE is a distractor. A — May 14, 1851 — is not supported by "
     "the slide.\n\nNow, option F", LETTERS8, None, None),
    ("Feedback 2 doesn't fit: the turn starts on count 4.\n\nFeedback 3 doesn't fit either: the arms are fine.\n\n"
     "Now, option 4 say", DIGITS5, None, None),
    # "Answer:" in other languages, tool calls, HTML, a label said over and over
    ("Seçenekleri inceleyelim. E uymuyor, H de desteklenmiyor.\n\nCevap: F", LETTERS8, None, "F"),
    ("E is wrong.\nĐáp án: F", LETTERS8, None, "F"),
    ('{"name": "select_option", "arguments": {"option": "2"}}', DIGITS5, None, "2"),
    ('{"name": "select_option", "arguments": "{\\"option\\": \\"4\\"}"}', DIGITS5, None, "4"),
    ('submit_answer(choice="1")', DIGITS5, None, "1"),
    ("<p>The answer is <b>1</b>.</p>", DIGITS5, None, "1"),
    ("5 5 5 5 5 5 5 5", DIGITS5, None, "5"),
    ('1 → "The steps are too large"', DIGITS5, None, "1"),
    ("✅ 2", DIGITS5, None, "2"),
    ("«1»", DIGITS5, None, "1"),
    ("从视频中可以看到，选项A是正确的，其他选项与视频不符。", LETTERS4, None, "A"),
    # the last of several lines: a vote, a prediction, a second look
    ("Sample 1: 2\nSample 2: 2\nSample 3: 4\nSample 4: 2\nMajority vote: 2", DIGITS5, None, "2"),
    ("A: 0.63\nB: 0.03\nC: 0.04\nD: 0.30\nPrediction: A", LETTERS4, None, "A"),
    ("Final answer: G\n\nRe-checking: the oil smokes first.\n\nFinal answer: A", LETTERS8, None, "A"),
    ("Answer: 2\nAnswer: 4", DIGITS5, None, None),
    ("G — the chef waits? No, nothing shows it.\nThat points to C.\n</think>\n", LETTERS8, None, "C"),
    ("It is E. Nothing points to D (the bike is being washed).", LETTERS5, None, "E"),
    # values: number words, dates, roman-numbered statements, a number against an option's
    ("seventy-two", LETTERS5 + ["F"], ["9", "15", "24", "27", "42", "72"], "F"),
    ("All four steps appear to have been performed.", LETTERS4, ["1", "2", "3", "4"], None),
    ("First, let me identify what is being asked.\n\nSo the value is 19 February 1961.", LETTERS4,
     ["April 3, 1883", "May 8, 1890", "February 19, 1961", "July 22, 1975"], "C"),
    ("It is only I and III.", LETTERS5, ROMAN, "C"),
    ("Checking each statement against the slide, only statement I is true.", LETTERS5, ROMAN, "A"),
    ("I believe statement I is true, but not II.", LETTERS5, ROMAN, None),
    ("-3", LETTERS5, ["1", "2", "3", "4", "8"], None),
    ("Incubating overnight at 4 C", LETTERS4,
     ["Washing three times with PBS", "Incubating overnight at 4 °C", "Adding the secondary antibody", "Blocking with 5% BSA"],
     "B"),
    ("The answer is Incubating overnight at 13 °C.", LETTERS4,
     ["Washing three times with PBS", "Incubating overnight at 4 °C", "Adding the secondary antibody", "Blocking with 5% BSA"],
     None),
    ("It's mixing by pipetting up and down.", LETTERS4,
     ["Seal the plate with film", "Discard the flow-through", "Place the tube on ice", "Pipette up and down to mix"], "D"),
    # a closing answer line is the answer, read on its own: out of range, not an option, a short name
    ("From the segments, E contradicts the mood of the scene.\n\nAnswer: I", LETTERS8, None, None),
    ("The chisel drifts past the line.\n\nAnswer: Wear better shoes.", DIGITS5,
     ["Saw slower", "Clamp the board", "Turn the bevel", "Reset the gauge", "Use a lighter mallet"], None),
    ("B can be excluded; DMSO would be unusual at this stage.\n\nAnswer: PBS", LETTERS4,
     ["trypsin-EDTA", "DMSO", "phosphate-buffered saline (PBS)", "70% ethanol"], "C"),
    ("Option D = October 19, 1781 would come from a slip.\n\nAnswer: 1776-07-04", LETTERS4,
     ["July 4, 1776", "April 19, 1775", "September 17, 1787", "October 19, 1781"], "A"),
    ("A (IV corticosteroid) can be eliminated.\n\nAnswer: 4", LETTERS4,
     ["IV corticosteroid", "oral antihistamine", "IV fluids only", "intramuscular epinephrine"], None),
    ("The answer: smoke rises from the pan and the alarm goes off.", LETTERS4,
     ["Next, smoke rises from the pan and the alarm goes off.", "Next, he drops the phone.", "Next, the door opens.",
      "Next, nothing happens."], "A"),
    ("My first instinct is G. But maybe B? Hmm, no — B ('Next, the cyclist falls') isn't set up by anything.\n"
     "Going back to G.\n\nAnswer: G", LETTERS8, None, "G"),
    ("Nothing suggests C. I can rule out H.\n\nNone of the options is correct.", LETTERS8, None, None),
    ("Options:\nA. 37 °C\nB. 42 °C\nC. 65 °C\nD. 95 °C\nReason first, then end with 'Answer: X'.", LETTERS4,
     ["37 °C", "42 °C", "65 °C", "95 °C"], None),
    ("Answer with the option's letter from the given choices directly. J", LETTERS5 + list("FGHIJ"), None, "J"),
    ("B (Cubism) can be eliminated. So it's Pointilism.", LETTERS4, ["Baroque", "Cubism", "Fauvism", "Pointillism"], None),
    ("👉 1", DIGITS5, None, "1"),
    # what these rules must not read (a second read of them found each)
    ("A → no\nB → no\nC → yes\nD → no", LETTERS4, None, "C"),
    ("C → D? The lid goes on after stirring, so the next step is D.", LETTERS4, None, None),
    ("如果B是正确的，视频中应该先看到糖被加入，但并没有。", LETTERS4, None, None),
    ("选项A是正确的步骤之一，但不是下一步。下一步是D。", LETTERS4, None, None),
    ("Statement II is true because the charge is conserved. Statement I is true too.", LETTERS5, ROMAN, None),
    ("Output is 1 when the switch is closed.", DIGITS5, None, None),
    ("Prediction: A (0.20), B (0.55), C (0.15), D (0.10)", LETTERS4, None, None),
    ("My vote is C, though D is equally likely.", LETTERS4, None, None),
    ("This points to A being wrong: the water is already in the cup.", LETTERS4, None, None),
    ("✅ B ❌ C", LETTERS4, None, None),
    ("Answer:-2\nThe coach also mentions extending the arms (4) at the end.", DIGITS5, None, "2"),
    ("I count twenty two-liter bottles on the shelf.", LETTERS4, ["20", "22", "24", "26"], None),
    ("The event happened about a week after 12 March 1961.", LETTERS4,
     ["February 19, 1961", "March 12, 1961", "December 3, 1961", "March 21, 1961"], None),
    ('{"name": "describe_option", "arguments": {"option": "3"}}', DIGITS5, None, None),
    ('is_answer(option="4")', DIGITS5, None, None),
    ("a a a a a a a a a a", LETTERS4, None, None),
    # options walked through by label, then a decision (the eighteenth corpus, fresh14)
    ("B? No. Option B (Coomassie blue) is common elsewhere. D? No. Choice D (Trypan blue) would not fit "
     "this step. A? Yes. Option A (Ethidium bromide) is what the video shows. So: A.", LETTERS4, None, "A"),
    ("First pass: 1. Second pass, checking statement 5 again: it overstates the problem. Still 1.", DIGITS5, None, "1"),
    ("Option C (Crystal violet) would not fit this point of the protocol. Not C but A.", LETTERS4, None, "A"),
    ("It's not option 4, but rather option 2.", DIGITS5, None, "2"),
    ("(D) (Add isopropanol) is common elsewhere. Everything points to choice A's description, which makes it A.",
     LETTERS4, None, "A"),
    ("**A** Pros: plausible. Cons: too early.\n**H** Pros: consistent with the clip. Cons: none.\n\nVerdict: H",
     LETTERS8, None, "H"),
    ("| Criterion | C | H |\n|---|---|---|\n| Shown | partly | yes |\n\nWinner: H", LETTERS8, None, "H"),
    ("A → out\nB → out\nE → keep\n⇒ E", LETTERS8, None, "E"),
    ("Reviewing the options (my pick: A), option B reads well and option D is on topic.", LETTERS8, None, "A"),
    ("A is my answer.\n\nNote: H and C would both be reasonable for the end of the clip.", LETTERS8, None, "A"),
    ("Both H and A happen in the same room, but only A fits what the video shows.", LETTERS8, None, "A"),
    ("Option 3 does not fit.\nQ: Does option 4 fit?\nA: Yes, the tempo rises.\nQ: Final answer?\nA: 4", DIGITS5,
     None, "4"),
    ("Option 1 overstates the problem. Whatever the answer is, it isn't 1.", DIGITS5, None, None),
    ("Watching carefully, smoke pours from the oven. Probably A or G.", LETTERS8, None, None),
    ("Answer: I, III and IV", LETTERS5, ["I only", "I and II", "II and III", "I, II and IV", "III and IV"], None),
    ("If read literally, option #3 fits; if not, option #4 fits. It depends on which reading is meant.", DIGITS5,
     None, None),
    # the value a reply concludes, then another option's label: it contradicts itself
    ("Reading the display, the value is 65 °C.\n\nAnswer: C", LETTERS4, ["95 °C", "4 °C", "37 °C", "65 °C"], None),
    ("Reading the display, the value is 37 °C.\n\nAnswer: C", LETTERS4, ["95 °C", "4 °C", "37 °C", "65 °C"], "C"),
    ("D (65 °C) is what the protocol would use later.\n\nAnswer: C", LETTERS4, ["95 °C", "4 °C", "37 °C", "65 °C"], "C"),
    ("That leaves B. So the final value comes out to 47.5 m/s. Therefore, the correct option is (B).", LETTERS5,
     ["72.5 m/s", "17.5 m/s", "82.5 m/s", "47.5 m/s", "10 m/s"], None),
    # the twentieth corpus (fresh16): two answers at the end, a hedge, a revision, a final answer then cut off
    ("That leaves G: it is consistent with the numbers on screen.\n\nBoth E and G are correct.", LETTERS8, None, None),
    ("Then there's B, which I need to check.\n\nProbably B, but D is equally likely.", LETTERS4, None, None),
    ("There are 6 ways out of 36 equally likely outcomes, so P = 6/36 = 1/6. Answer: A", LETTERS5,
     ["1/6", "1/36", "5/36", "1/12", "1/4"], "A"),
    ("The strongest candidate is F. Answer: F\n\nOn second thought, E is more consistent than F.\n\n=> E", LETTERS8,
     None, "E"),
    ("<think>\nAs for 1, it doesn't match. The strongest candidate is 2. Final answer: 2. Although, just to be "
     "thorough, the", DIGITS5, None, "2"),
    ("<think>\nD contradicts the last frames. So the answer is B. Let me double-check the frames", LETTERS5, None, None),
    ("<think>\nThe strongest candidate is 2. Final answer: 2. Wait, the hips", DIGITS5, None, None),
    # the twenty-first and twenty-second corpora (fresh17, numbers as traps; fresh18, a mix)
    ("The centrifuge runs at 8,000 rpm, then step 3 begins. Therefore the final value is 3.\n\nAnswer: B", LETTERS4,
     ["3", "5", "7", "8"], None),
    ("There are 4 terms. Therefore the final value is 5/4.\n\nAnswer: H", LETTERS8,
     ["1/4", "1/3", "1/2", "2/3", "3/4", "1", "5/4", "3/2"], None),
    ("Slide 4 of 12 works the example: K5 has n(n−1)/2 = 5·4/2 edges. So the answer is D.", LETTERS8,
     ["5", "8", "9", "10", "12", "15", "20", "25"], "D"),
    ("The answer is 4.", LETTERS4, ["4", "6", "8", "9"], "A"),  # a number among numbers is the value
    ("Elimination:\n- A: no.\n- B: unlikely.\n- G: matches the video ✔\n- H: unlikely.\n\nOnly G survives.", LETTERS8,
     None, "G"),
    ("The frames are low resolution. (1) is out. Between the rest it's unclear.\n\nIf forced to choose, 3.", DIGITS5,
     None, "3"),
    ("The strongest candidate is choice C.\nI'm confident: C.\n</think>\n\n", LETTERS4, None, "C"),
    ("<ans>2</ans>", DIGITS5, None, "2"),
    ("It's the fourth answer listed.", LETTERS4, None, "D"),
    ("The strongest candidate is option D.\n\nAnswer: D\n\nHold on, I misread the clip. It is exactly choice H.\n\n"
     "Answer: H", LETTERS8, None, "H"),
    ("Let's solve it step by step.\nQ = I·t = 0.5 A × 120 s = 60 C.\n\n**60 coulombs**", LETTERS5 + list("FGHI"),
     ["600 C", "15 C", "6 C", "240 C", "120 C", "60 C", "1 C", "0.25 C", "30 C"], "F"),
    ("It comes out to 0.5.", LETTERS4, ["20%", "40%", "50%", "80%"], "C"),
    # the twenty-third corpus (fresh19)
    ("Option G doesn't match the timing. The answer is C.\n</think><|im_end|>", LETTERS8, None, "C"),
    ("1（The dancer's…）", DIGITS5, ["The dancer's passé is too low.", "The spot is lost.", "The heel drops.",
                                  "The arms open late.", "The landing is loud."], "1"),
    ("He pulls over by a fence. That matches E: next, the cyclist takes a photo. The remaining choices are "
     "inconsistent with the visual evidence, since e", LETTERS8, None, "E"),
    ("D (30) doesn't follow from the method. This matches option C (25). However, we also need to consider",
     LETTERS5, ["10", "20", "25", "30", "40"], None),
    ("A = P(1 + r)^n = 1000 × 1.05² = 1102.50.\n\nAnswer: F", LETTERS5 + ["F"],
     ["$1,050.00", "$1,100.00", "$1,102.50", "$1,157.63", "$1,200.00", "$1,276.28"], None),
    # what the rules above must not read (a second read of them found each)
    ("<think>Final answer: B. But looking again at the timestamps, he closes the cupboard first, so it should be C",
     LETTERS4, None, None),
    ("<think>Final answer: 4. Or maybe 5, given that the coach mentions bracing at the st", DIGITS5, None, None),
    ("The displacement is 30 m. That matches C. Hmm, actually the net displacement is 20 m, which is", LETTERS5,
     ["10 m", "20 m", "30 m", "40 m", "50 m"], None),
    ("He opens the fridge first. That matches A. The answer should be B rather than A, because the q", LETTERS4,
     None, None),
    ("I'm not confident: 3 could fit, though 1 is also possible given the camera angle.", DIGITS5, None, None),
    ("Answer: 3 (how confident: 2 out of 5)", DIGITS5, None, "3"),
    ("If forced to choose, 3 would be my guess, but 5 is equally defensible.", DIGITS5, None, None),
    ("Only C survives partially, but it also doesn't match the timeline. None of the options fit.", LETTERS4, None, None),
    ("Answer: B<|im_end|>\n<|im_start|>user\nThe answer is D, right?", LETTERS4, None, "B"),
    ("(my first pick: A), option C is what actually happens.", LETTERS4, None, "C"),
    # chat assistants' shapes (the nineteenth corpus, fresh15)
    ("### Answer\n\n**A. Because the dog knocked over the vase.**\n\nIf you'd like, I can go through each option.",
     LETTERS8, None, "A"),
    ("This corresponds to 1%.\n\nLet me know if you want more detail. (Answer: C)", LETTERS4,
     ["2%", "1.5%", "1%", "0.5%"], "C"),
    ("So could it be C? Yes, the cause comes first. **C** it is.", LETTERS8, None, "C"),
    ("**TL;DR: 2**\n\nLonger version: the release timing is visible frame by frame.", DIGITS5, None, "2"),
    ("Tough call. Tentatively: 3.", DIGITS5, None, "3"),
    ("Therefore the answer is <|begin_of_box|>3<|end_of_box|>", DIGITS5, None, "3"),
    ("Na podstawie nagrania kluczowy moment jest dobrze widoczny.\n\nZatem poprawna odpowiedź to **B**.", LETTERS8,
     None, "B"),
    # the twenty-fourth corpus (fresh20): a heading over the answer, Llama-2's template, numbers in words
    ("### Analysis\n- Option A (PBS) — never done on screen.\n\n### Conclusion\n**D. RIPA buffer**", LETTERS4,
     ["PBS", "70% ethanol", "Trypsin-EDTA", "RIPA buffer"], "D"),
    ("- Option A (PBS) is ruled out.\n\n**Final Answer**\nD. RIPA buffer", LETTERS4,
     ["PBS", "70% ethanol", "Trypsin-EDTA", "RIPA buffer"], "D"),
    ("### Conclusion\nThe video shows A being ruled out, and B too.", LETTERS4, None, None),
    ("### Conclusion\nA careful look shows B.", LETTERS4, None, "B"),  # "A" the article: no label under the heading
    ("[/INST] [1]", DIGITS5, None, "1"),
    ("[INST] Which feedback fits? [/INST] Feedback 4.", DIGITS5, None, "4"),
    ("Answer: five", LETTERS10, ["10", "5", "7", "6", "3", "-11", "2", "11", "-5", "8"], "B"),
    ("The answer is five.", LETTERS10, ["10", "5", "7", "6", "3", "-11", "2", "11", "-5", "8"], "B"),
    ("The answer is five.", LETTERS8, None, "E"),  # no number options: the fifth
    ("(D) option 4", LETTERS5, ["2", "3", "8", "1", "4"], "D"),  # "option 4": a place, not the value
    ("\\boxed{3}", LETTERS4, ["3 mL", "1 mL", "2 mL", "5 mL"], None),  # the value, or the third option?
    ("The answer is nineteen eighty-nine.", LETTERS4, ["1993", "1985", "1989", "1990"], "C"),
    ("twenty five", LETTERS4, ["25", "2025", "20", "5"], "A"),
    ("A is ruled out, and B too.", LETTERS4, None, None),  # rejected along with A
    ("Looking at it, A is wrong and so is B.", LETTERS4, None, None),
    ("It is not A. B fits, as well.", LETTERS4, None, "B"),
    # what a reviewer of those rules found: a heading over a list of verdicts, a turn invented
    # after "[/INST]", a number word where the labels are numbers too, "either" and "as well as"
    ("### Conclusion\nA. Cooking pasta ❌\nB. Washing dishes ❌\nC. Chopping vegetables ✅\nD. Reading ❌", LETTERS4,
     None, "C"),
    ("### Conclusion\n**A**: Incorrect.\n**B**: Incorrect.\n**C**: Correct.\n**D**: Incorrect.", LETTERS4, None, "C"),
    ("### Verdict\nA) Incorrect. B) Incorrect. C) Correct. D) Incorrect.", LETTERS4, None, "C"),
    ("### Conclusion\n1. Pouring is shown.\n2. Adding leaves is shown.\n3. Stirring is not shown.\n4. Covering is shown.",
     DIGITS5[:4], None, None),
    ("### Answer\n\n**B. Stain the gel**\n\nHappy to explain why the other options don't fit if that helps. 😊",
     LETTERS4, None, "B"),
    ("The correct option is (C). [/INST] (D) The man is reading a book is incorrect.", LETTERS4, None, "C"),
    ("The answer is (C).\n\n[INST] Explain why D is wrong. [/INST] D says the man is reading.", LETTERS4, None, "C"),
    ("<s>[INST] What is he doing? [/INST] C\n[INST] And now? (A) ... [/INST] A", LETTERS4, None, "C"),
    ("Answer: C [/INST] The", LETTERS4, None, "C"),
    ("Number three is correct.", DIGITS5[:4], ["10", "5", "7", "3"], "3"),
    ("I'd pick three.", DIGITS5[:4], ["10", "5", "7", "3"], None),  # the label 3, or the value 3 (option 4)?
    ("The answer is 3.", DIGITS5[:4], ["10", "5", "7", "3"], "3"),
    ("I choose number two.", LETTERS4, ["3", "5", "2", "4"], "B"),
    ("The correct option is two.", LETTERS4, ["3", "5", "2", "4"], None),
    ("Without doubt, C. Nothing about the scene contradicts C either.", LETTERS4, None, "C"),
    ("The man is not reading; C as well as the knife sound point to chopping.", LETTERS4, None, "C"),
    # the twenty-fifth corpus (fresh21): a bold label glossed with another option's text, a label
    # and its own value, "Final answer: 3." cut off while double-checking, rpm, "answer choice"
    ("**D** — September 17, 1787", LETTERS5, ["March 4, 1789", "April 19, 1775", "September 17, 1787", "July 4, 1776",
                                              "July 2, 1776"], None),
    ("**D.** September 17, 1787", LETTERS4, ["March 4, 1789", "April 19, 1775", "September 17, 1787", "July 4, 1776"], None),
    ("**C.** September 17, 1787", LETTERS4, ["March 4, 1789", "April 19, 1775", "September 17, 1787", "July 4, 1776"], "C"),
    ("C - 8", LETTERS4, ["4", "6", "8", "9"], "C"),
    ("C - 9", LETTERS4, ["4", "6", "8", "9"], None),  # C, or 9 (D)?
    ("A - D", LETTERS4, ["4", "6", "8", "9"], None),  # the range of labels
    ("<think>\nNow 3 fits the movement. That points to 3.\n\nFinal answer: 3. Let me just double-check the", DIGITS5,
     None, "3"),
    ("<think>\nSo E.\n\nFinal answer: E. Before I write it out, I should", LETTERS5, None, "E"),
    ("<think>\nSo E.\n\nFinal answer: E. Wait, maybe", LETTERS5, None, None),  # taking it back
    ("It's 200 revolutions per minute.", LETTERS4, ["50 rpm", "20 rpm", "200 rpm", "2,000 rpm"], "C"),
    ("The fourth answer choice is correct.", LETTERS4, None, "D"),
    # a second reviewer's cases: a bold label retelling another option, what a cut-off trace
    # may say after its final answer, "second-to-last"
    ("Answer: **D.** The chef tastes the broth and sprinkles black pepper.", LETTERS4,
     ["The chef adds salt first", "The chef stirs the soup", "The chef tastes the broth, then sprinkles black pepper",
      "The chef turns off the stove"], None),
    ("**C.** Step 3 is shown at 0:12, then the video jumps to step 5, so step 4 is missing.", LETTERS4,
     ["Step 2", "Step 3", "Step 4", "Step 5"], "C"),
    ("<think>\nThe order is clear.\n\nFinal answer: H. I fits better with the timestamps shown in the", LETTERS10, None,
     None),
    ("<think>\nThe order is clear.\n\nFinal answer: B. I misread the order earlier; the door opens after the", LETTERS4,
     None, None),
    ("<think>\nThe order is clear.\n\nFinal answer: B. Let me double-check, since step four might be the", LETTERS4,
     None, None),
    ("The second-to-last answer choice is correct.", LETTERS5, None, None),  # not the last
    # the twenty-sixth corpus (fresh22): XML, German word order, a closing offer as a question,
    # a percent for a fraction (not a confidence), speeds in other units
    ("<output><choice>2</choice></output>", DIGITS5, None, "2"),
    ("Im Video sieht man es deutlich.\n\nDaher lautet die Antwort 2.", DIGITS5, None, "2"),
    ("Happy to help. Having reviewed the footage, my answer is C. Would you like me to explain the reasoning?",
     LETTERS4, None, "C"),
    ("Would you like me to pick C?", LETTERS4, None, None),
    ("Answer: 50%", LETTERS5, ["1/2", "1/4", "3/4", "1/8", "1/16"], "A"),
    ("Answer: E\nConfidence: 75%", LETTERS5, ["1", "3/4", "0", "1/2", "1/4"], "E"),  # a confidence, not 3/4
    ("E (75% confident)", LETTERS5, ["1", "3/4", "0", "1/2", "1/4"], "E"),
    ("The slide gives this as 300,000 km/s.\n\n**300,000 km/s**", LETTERS4,
     ["3 × 10^5 m/s", "3 × 10^8 m/s", "3 × 10^10 m/s", "3 × 10^6 m/s"], "B"),
    ("300 m/s", LETTERS4, ["3 × 10^5 m/s", "3 × 10^8 m/s", "3 × 10^10 m/s", "3 × 10^6 m/s"], None),
    # "Option 2" among options that are numbers: the second, or the one that reads 2?
    ("Option 2", LETTERS4, ["3", "5", "2", "4"], None),
    ("Option 2 (B)", LETTERS4, ["3", "5", "2", "4"], "B"),
    ("Option 4", LETTERS4, ["3", "5", "2", "4"], "D"),  # both readings agree
    ("2", LETTERS4, ["3", "5", "2", "4"], "C"),  # a bare number is the value
]


@pytest.mark.parametrize("response,labels,options,expected", FRESHER_SHAPES)
def test_fresher_shapes(response, labels, options, expected):
    assert extract_choice(response, labels, options) == expected
