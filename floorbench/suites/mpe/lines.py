"""Suite mpe's lines in Spanish, German and Mandarin, written by hand for `generate --suite mpe --language`.

English keeps its own, much larger generator (`generate.py`, `tasks.py`, `vocab.py`, `phrases.py`); these
banks are smaller: one setting (a kitchen, people cooking dinner, a smart speaker on the counter) and three
task families — what two things cost together (`sum_cost`), who brings a dish (`who_brings`) and where a
thing is (`where_is`). Each family states its facts in turns before the request and computes the gold from
them, so the gold is right by construction. Numbers are said as digits in Spanish and German (espeak-ng reads
them in the voice's language) and as Chinese numerals in Mandarin (its pinyin voice does not read digits).

Templates: `{name}` another person's name, `{c}` a fact clause, `{q}`/`{iq}` the direct and the embedded
question, `{a}`/`{A}` a person's answer to a side question, `{asker}` who asked it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SideQuestion:
    """A question to Aria that a person resolves (N4Q/N4R)."""

    question: str
    attempt: str
    """what an eager assistant starts to say (the oracle's words)"""
    human_answer: str


@dataclass(frozen=True)
class Lines:
    """Everything a scenario in one language says."""

    preamble: str
    """the duty preamble, short: the English one says much more, but espeak-ng at floorbench's slow rate
    would take some 45 s to say it, before every scenario"""
    answer: str
    """the oracle's answer to a request: `{gold}`"""
    female: tuple[str, ...]
    male: tuple[str, ...]
    n1: tuple[str, ...]
    """mentions Aria, asks her nothing"""
    n2: tuple[str, ...]
    """said to another person (`{name}`)"""
    n3: tuple[str, ...]
    """self-talk"""
    fact_n1: tuple[str, ...]
    fact_n2: tuple[str, ...]
    fact_n3: tuple[str, ...]
    explicit: tuple[str, ...]
    """request frames that name Aria"""
    implicit: tuple[str, ...]
    """request frames that do not"""
    cues: tuple[str, ...]
    """added to the turn before an implicit request: the speaker gives up on the question"""
    n4q: tuple[str, ...]
    never_mind: tuple[str, ...]
    resolved: tuple[str, ...]
    side_questions: tuple[SideQuestion, ...]
    # task families
    money: str
    """a price said in a turn: `{n}` (digits or numerals, see `said`)"""
    prices: tuple[tuple[str, str, int, int], ...]
    """(the item as subject, as object, cheapest, dearest)"""
    price_facts: tuple[str, ...]
    """`{s}` the item as subject, `{o}` as object, `{p}` the price"""
    sum_question: tuple[str, str]
    """(direct, embedded): `{a}`, `{b}` the two items as subjects"""
    dishes: tuple[str, ...]
    bring_fact: str
    """`{person}` brings `{dish}`"""
    bring_question: tuple[str, str]
    things: tuple[tuple[str, str], ...]
    """(the thing, its verb of place)"""
    places: tuple[tuple[str, str], ...]
    """(the place as said, a shorter form that also counts)"""
    where_fact: str
    """`{thing}` `{verb}` `{place}`"""
    where_question: tuple[str, str]


ES = Lines(
    preamble="Hola. Eres Aria. Responde solo cuando te pregunten a ti, y sé breve; si no, quédate callada.",
    answer="La respuesta es {gold}.",
    female=("Lucía", "Carmen", "Elena"),
    male=("Javier", "Pablo", "Diego", "Andrés", "Miguel"),
    n1=("Aria me recordó lo del horno ayer, menos mal.", "Desde que tenemos a Aria no se me olvida ninguna receta.",
        "Aria es más puntual que todos nosotros juntos.", "Le pedí a Aria la receta de mi abuela la semana pasada."),
    n2=("{name}, ¿me pasas la sartén grande?", "{name}, prueba esto y dime si le falta sal.",
        "{name}, no abras el horno todavía.", "{name}, ¿puedes poner la mesa?", "{name}, ¿has visto el abrelatas?"),
    n3=("A ver, ¿dónde habré puesto el ajo?", "Primero la cebolla, luego el ajo.",
        "Mmm, esto huele un poco a quemado.", "¿Dos tazas de caldo, o eran tres?"),
    fact_n1=("Como le conté a Aria esta mañana, {c}.",),
    fact_n2=("{name}, {c}.", "Oye, {name}, {c}.", "{name}, que sepas que {c}."),
    fact_n3=("A ver, {c}.", "Vale, {c}, que no se me olvide."),
    explicit=("Aria, {q}", "Oye, Aria, {q}", "Aria, una pregunta: {q}"),
    implicit=("{Q}", "Una pregunta: {q}", "¿Alguien me puede decir {iq}?"),
    cues=("Yo ya no me acuerdo de nada.", "A mí no me preguntéis, que he perdido la cuenta.",
          "No estaba prestando atención, lo siento."),
    n4q=("Aria, {q}", "Oye, Aria, {q}", "Perdona, Aria, {q}"),
    never_mind=("Ah, da igual, ya lo he encontrado.", "Déjalo, no importa.", "Nada, nada, ya lo miro luego."),
    resolved=("{A}.", "{asker}, {a}.", "Eso lo sé yo: {a}."),
    side_questions=(
        SideQuestion("¿cuánto tiempo hay que hervir un huevo para que quede blando?",
                     "Para que la yema quede líquida, unos seis minutos y luego agua fría.",
                     "seis minutos, y luego a agua fría"),
        SideQuestion("¿se puede congelar el arroz cocido?",
                     "Sí, se puede congelar. Déjalo enfriar rápido y guárdalo hasta un mes.",
                     "sí, pero déjalo enfriar antes"),
        SideQuestion("¿cuál es la capital de Australia?", "La capital de Australia es Canberra, no Sídney.",
                     "es Canberra, no Sídney"),
        SideQuestion("¿a qué hora se pone el sol hoy?", "Hoy el sol se pone hacia las ocho y cuarto de la tarde.",
                     "sobre las ocho, lo pone en el móvil"),
    ),
    money="{n} euros",
    prices=(("el salmón", "el salmón", 12, 28), ("el vino", "el vino", 8, 24), ("el queso", "el queso", 6, 15),
            ("la pasta fresca", "la pasta fresca", 4, 9), ("el postre", "el postre", 5, 12)),
    price_facts=("{s} costó {p}", "pagamos {p} por {o}"),
    sum_question=("¿cuánto nos costaron {a} y {b} en total?", "cuánto nos costaron {a} y {b} en total"),
    dishes=("el postre", "el pan", "las bebidas", "la ensalada"),
    bring_fact="{person} trae {dish}",
    bring_question=("¿quién trae {dish}?", "quién trae {dish}"),
    things=(("las llaves del coche", "están"), ("el sacacorchos", "está"), ("las tijeras", "están")),
    places=(("en el cajón de la entrada", "el cajón de la entrada"), ("encima de la nevera", "la nevera"),
            ("en la mesa del salón", "la mesa del salón")),
    where_fact="{thing} {verb} {place}",
    where_question=("¿dónde {verb} {thing}?", "dónde {verb} {thing}"),
)

DE = Lines(
    preamble="Hallo. Du bist Aria. Antworte nur, wenn man dich fragt, und fasse dich kurz; sonst sei still.",
    answer="Die Antwort: {gold}.",
    female=("Anna", "Lena", "Julia"),
    male=("Lukas", "Jonas", "Felix", "Tobias", "Max"),
    n1=("Aria hat mich gestern an den Ofen erinnert, zum Glück.", "Seit wir Aria haben, vergesse ich kein Rezept mehr.",
        "Aria ist pünktlicher als wir alle zusammen.", "Ich habe Aria letzte Woche nach Omas Rezept gefragt."),
    n2=("{name}, gibst du mir mal die große Pfanne?", "{name}, probier mal und sag mir, ob Salz fehlt.",
        "{name}, mach den Ofen noch nicht auf.", "{name}, kannst du den Tisch decken?",
        "{name}, hast du den Dosenöffner gesehen?"),
    n3=("Wo habe ich nur den Knoblauch hingelegt?", "Erst die Zwiebeln, dann der Knoblauch.",
        "Hm, das riecht ein bisschen angebrannt.", "Zwei Tassen Brühe, oder waren es drei?"),
    fact_n1=("Wie ich Aria heute Morgen schon gesagt habe: {c}.",),
    fact_n2=("{name}, {c}.", "Du, {name}, {c}.", "{name}, nur damit du es weißt: {c}."),
    fact_n3=("So, {c}.", "Also, {c}, das darf ich nicht vergessen."),
    explicit=("Aria, {q}", "Hey Aria, {q}", "Aria, eine Frage: {q}"),
    implicit=("{Q}", "Eine Frage: {q}", "Kann mir jemand sagen, {iq}?"),
    cues=("Ich kann mir das alles nicht merken.", "Frag mich nicht, ich habe den Überblick verloren.",
          "Ich habe nicht richtig zugehört, tut mir leid."),
    n4q=("Aria, {q}", "Hey Aria, {q}", "Entschuldige, Aria, {q}"),
    never_mind=("Ach, egal, ich hab's gefunden.", "Vergiss es, ist nicht so wichtig.",
                "Schon gut, ich schau später nach."),
    resolved=("{A}.", "{asker}, {a}.", "Das weiß ich: {a}."),
    side_questions=(
        SideQuestion("wie lange muss ein Ei kochen, damit es weich bleibt?",
                     "Für ein weiches Ei etwa sechs Minuten, dann kalt abschrecken.",
                     "sechs Minuten, dann kalt abschrecken"),
        SideQuestion("kann man gekochten Reis einfrieren?",
                     "Ja, gekochten Reis kann man einfrieren, am besten vorher schnell abkühlen lassen.",
                     "ja, aber vorher schnell abkühlen lassen"),
        SideQuestion("was ist die Hauptstadt von Australien?", "Die Hauptstadt von Australien ist Canberra, nicht Sydney.",
                     "Canberra, nicht Sydney"),
        SideQuestion("wann geht heute die Sonne unter?", "Heute geht die Sonne gegen Viertel nach acht unter.",
                     "so gegen acht, steht in der Wetter-App"),
    ),
    money="{n} Euro",
    prices=(("der Lachs", "den Lachs", 12, 28), ("der Wein", "den Wein", 8, 24), ("der Käse", "den Käse", 6, 15),
            ("die frische Pasta", "die frische Pasta", 4, 9), ("das Dessert", "das Dessert", 5, 12)),
    price_facts=("{s} hat {p} gekostet", "für {o} haben wir {p} bezahlt"),
    sum_question=("was haben {a} und {b} zusammen gekostet?", "was {a} und {b} zusammen gekostet haben"),
    dishes=("den Nachtisch", "das Brot", "die Getränke", "den Salat"),
    bring_fact="{person} bringt {dish} mit",
    bring_question=("wer bringt {dish} mit?", "wer {dish} mitbringt"),
    things=(("der Autoschlüssel", "liegt"), ("der Korkenzieher", "liegt"), ("die Schere", "liegt")),
    places=(("in der Schublade im Flur", "in der Schublade"), ("auf dem Kühlschrank", "Kühlschrank"),
            ("auf dem Wohnzimmertisch", "Wohnzimmertisch")),
    where_fact="{thing} {verb} {place}",
    where_question=("wo {verb} {thing}?", "wo {thing} {verb}"),
)

ZH = Lines(
    preamble="你好。你是Aria。只有别人问你的时候才回答，回答要简短；别的时候请保持安静。",
    answer="答案是{gold}。",
    female=("小丽", "王芳", "李娜"),
    male=("张伟", "刘洋", "陈明", "小强", "王磊"),
    n1=("昨天多亏Aria提醒我关烤箱。", "自从有了Aria，我再也没忘过菜谱。", "Aria比我们所有人都准时。",
        "上个星期我让Aria找了奶奶的菜谱。"),
    n2=("{name}，把那个大锅递给我好吗？", "{name}，你尝尝，看看要不要加盐。", "{name}，先别打开烤箱。",
        "{name}，你能摆一下桌子吗？", "{name}，你看到开罐器了吗？"),
    n3=("我把大蒜放哪儿了？", "先放洋葱，再放大蒜。", "嗯，好像有点糊了。", "两杯高汤，还是三杯来着？"),
    fact_n1=("我早上已经跟Aria说过了，{c}。",),
    fact_n2=("{name}，{c}。", "{name}，跟你说一下，{c}。"),
    fact_n3=("嗯，{c}。", "好，{c}，可别忘了。"),
    explicit=("Aria，{q}", "嘿，Aria，{q}", "Aria，问你一下，{q}"),
    implicit=("{q}", "问一下，{q}", "谁能告诉我{iq}？"),
    cues=("我已经记不清了。", "别问我，我早就算不过来了。", "不好意思，我刚才没注意听。"),
    n4q=("Aria，{q}", "嘿，Aria，{q}", "不好意思，Aria，{q}"),
    never_mind=("哦，算了，我找到了。", "算了，没关系。", "不用了，我待会儿自己查。"),
    resolved=("{a}。", "{asker}，{a}。", "这个我知道，{a}。"),
    side_questions=(
        SideQuestion("鸡蛋要煮多久才是溏心的？", "溏心蛋大概煮六分钟，然后马上放进冷水里。", "六分钟，然后放冷水里"),
        SideQuestion("煮好的米饭可以冷冻吗？", "可以，先让米饭快速冷却，然后最多冷冻一个月。", "可以，先放凉就行"),
        SideQuestion("澳大利亚的首都是哪里？", "澳大利亚的首都是堪培拉，不是悉尼。", "是堪培拉，不是悉尼"),
        SideQuestion("今天几点日落？", "今天大概八点一刻日落。", "八点左右，手机上有"),
    ),
    money="{n}块钱",
    prices=(("三文鱼", "三文鱼", 12, 28), ("葡萄酒", "葡萄酒", 8, 24), ("奶酪", "奶酪", 6, 15),
            ("意大利面", "意大利面", 4, 9), ("甜点", "甜点", 5, 12)),
    price_facts=("{s}花了{p}", "买{o}花了{p}", "{s}是{p}"),
    sum_question=("{a}和{b}一共花了多少钱？", "{a}和{b}一共花了多少钱"),
    dishes=("甜点", "面包", "饮料", "沙拉"),
    bring_fact="{person}带{dish}来",
    bring_question=("谁带{dish}来？", "谁带{dish}来"),
    things=(("车钥匙", "在"), ("开瓶器", "在"), ("剪刀", "在")),
    places=(("门口的抽屉里", "抽屉里"), ("冰箱上面", "冰箱上"), ("客厅的桌子上", "客厅的桌子")),
    where_fact="{thing}{verb}{place}",
    where_question=("{thing}在哪儿？", "{thing}在哪儿"),
)

LINES: dict[str, Lines] = {"es": ES, "de": DE, "zh": ZH}
"""per language beyond English (floorbench.speech.languages)"""
FAMILIES = ("sum_cost", "who_brings", "where_is")
"""the task families every language here has"""

_ZH_DIGITS = "零一二三四五六七八九"


def chinese_numeral(n: int) -> str:
    """Mandarin numerals for 0 <= n < 100 (三十五)."""
    if not 0 <= n < 100:
        raise ValueError(f"{n}: only 0..99")
    tens, ones = divmod(n, 10)
    if tens == 0:
        return _ZH_DIGITS[ones]
    return ("" if tens == 1 else _ZH_DIGITS[tens]) + "十" + (_ZH_DIGITS[ones] if ones else "")


def said(n: int, code: str) -> str:
    """A number as a turn says it in language `code`."""
    return chinese_numeral(n) if code == "zh" else str(n)


def money_gold(n: int, code: str) -> tuple[str, list[str]]:
    """The gold of a sum and its other accepted forms."""
    if code == "zh":
        w = chinese_numeral(n)
        return f"{n}元", [str(n), w, f"{n}块", f"{w}块", f"{w}元", f"{w}块钱"]
    return LINES[code].money.format(n=n), [str(n), f"{n} €"]
