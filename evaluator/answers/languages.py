"""Answer markers in other languages, for `markers`: "答案是 B", "正解は3", "정답은 C", "La respuesta
correcta es la B", "Die Antwort ist 3", "Ответ: В", "Cevap: F", "Đáp án: F", ...
"""

from __future__ import annotations

import re

# Answer markers in other languages, each anchored at its keyword: Chinese
# (答案是 / 答案： / 正确答案是 / 我选择 / 选), Japanese (答えは / 正解は), Korean
# (정답은), Spanish, French, Portuguese, Italian, German, Russian; "Answer:" in seventeen more
# languages ("Cevap: F", "Đáp án: F", "Antwoord: F", "उत्तर: F", ...).
M_INTL = re.compile(
    r"""(?:(?:答案|答え|正解|정답|回答)\s*[】\]]?\s*(?:应该|應該|应|應|就)?\s*(?:是|为|為|は|은|는|[:：=]|选|選)?\s*(?:选项|選項)?
        |(?:对应|對應|即|也就是)\s*(?:的)?\s*(?:选项|選項)\s*[:：]?
        |(?:选择|選擇|选|選)(?![项項])\s*[了:：]?\s*(?:选项|選項)?
        |(?:respuesta|r[ée]ponse|antwort|resposta|risposta|ответ)
           (?:\s+(?:correcta|correcte|correta|corretta|giusta|richtige|final|finale|правильный))?
           \s*(?:\b(?:es|est|ist|lautet|é|è)\b|[:：]|[—–-](?=\s))
           \s*(?:(?:la|le|die|a)\s+|l['’]\s*)?(?:(?:opci[óo]n|option|opção|opzione|вариант)\s+)?
        |(?<=lautet\sdie\s)antwort\s+|(?<=ist\sdie\s)antwort\s+  # "Daher lautet die Antwort 2."
        |opci[óo]n\s+(?:correcta\s+)?(?:es\s+(?:la\s+)?)?
        |ответ\s+(?=[A-ZА-Я0-9(](?:\W|$))|corret[ao]\s+é\s+|doğru\s+cevap\s*[:：]?\s*
        |jawaban(?:nya)?\s+(?:yang\s+benar\s+)?adalah\s+
        |odpowiedź\s+(?:to|jest)\s+
        |(?:cevap|yanıt|đáp\s+án|उत्तर|الإجابة|الجواب|jawaban|antwoord|odpowiedź|svar|vastaus|răspuns|απάντηση|תשובה|คำตอบ
           |jibu|відповідь|odpověď|válasz)\s*[:：]\s*
        |(?:应该|應該|应当|應當)\s*(?:是|选|選)\s*(?:选项|選項)?
        |c['’]est\s+(?:(?:la|le)\s+|l['’]\s*)?(?:option\s+)?
        |(?:反馈|反饋)\s*(?:应该|應該)?\s*(?:是|为|為)\s*(?:选项|選項)?
        |(?:elijo|escojo|choisis|w[äa]hle|sondern|sino)\s+(?:(?:donc|alors|also|deshalb|daher|entonces|pues)\s+)?
           (?:(?:la|le|l['’]|die)\s*)?(?:(?:opci[óo]n|option)\s+)?
        |(?:认为|認為|觉得|覺得)\s*(?:应该)?\s*(?:是|选|選)\s*(?:选项|選項)?
        |(?:최종\s*)?답\s*(?:은|는)?\s*[:：]
        |(?:最(?:准确|準確|佳|合适|合適|符合|恰当|恰當)|正确|正確)[^\n。，,；;]{0,10}?(?:是|为|為)\s*(?:选项|選項)?
        )""",
    re.X | re.I,
)

# where each of them starts (lower-cased), for the markers' one keyword search (searched before
# the English keywords: "choisis" is not "cho[ose]")
INTL_KEYWORDS_RE = (r"elijo|escojo|choisis|w[äa]hle|sondern|sino\b|最|正确|正確"
                    r"|答案|答え|正解|정답|回答|选|選|应该|應該|应当|應當|反馈|反饋|认为|認為|觉得|覺得|对应|對應|也就是|답|c['’]est|respuesta"
                    r"|r[ée]ponse|antwort|resposta|risposta|ответ|opci[óo]n|corret[ao]|doğru|jawaban"
                    r"|cevap|yanıt|đáp|उत्तर|الإجابة|الجواب|antwoord|odpowiedź|svar|vastaus|răspuns|απάντηση|תשובה|คำตอบ|jibu"
                    r"|відповідь|odpověď|válasz")
# the keywords as they are found, each confirmed by M_INTL at its place
INTL_KEYWORDS = ("答案", "答え", "正解", "정답", "选", "選", "应该", "應該", "应当", "應當", "反馈", "反饋", "认为", "認為", "觉得",
                 "覺得", "对应", "對應", "也就是", "답", "c'est", "c’est", "respuesta", "réponse", "reponse", "antwort",
                 "resposta", "risposta", "ответ", "opción", "opcion", "elijo", "escojo", "choisis",
                 "wähle", "wahle", "sondern", "sino", "correta", "correto", "doğru", "jawaban", "回答", "最", "正确", "正確",
                 "cevap", "yanıt", "đáp", "उत्तर", "الإجابة", "الجواب", "antwoord", "odpowiedź", "svar", "vastaus", "răspuns",
                 "απάντηση", "תשובה", "คำตอบ", "jibu", "відповідь", "odpověď", "válasz")

__all__ = ["INTL_KEYWORDS", "INTL_KEYWORDS_RE", "M_INTL"]
