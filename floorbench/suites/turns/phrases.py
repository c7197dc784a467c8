"""Suite turns' phrase banks beyond English (`floorbench generate --suite turns --language es|de|zh`).

The same conversations as the English banks in `floorbench.suites.turns.generate`, translated: per
conversation type three turns (first part, second part, the oracle's reply), and the backchannels,
barge-ins, background lines and the reply to a barge-in. What the suite measures is timing (end of turn,
pauses, barge-ins, backchannels, a second voice), so the words matter only as speech in the language
of the call; they are spoken by the language's espeak-ng voice (floorbench.speech.languages), the
background voice too (the only local voice of each), so `noise` is the same voice at the same level.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bank:
    """One language's lines for the turns generator."""

    turns: dict[str, list[tuple[str, str, str]]]
    backchannels: tuple[str, ...]
    interrupts: tuple[str, ...]
    background: tuple[str, ...]
    go_ahead: str
    """the oracle's reply to a barge-in"""
    hello: str
    """the suite's preamble line"""


BANKS: dict[str, Bank] = {
    "es": Bank(
        turns={
            "casual": [
                ("Por fin fui a la panadería nueva,", "y el pan todavía estaba caliente.",
                 "Qué bien. El pan caliente por la mañana es difícil de superar."),
                ("Mi vecino tiene un cachorro nuevo,", "y le ladra a cada pájaro.",
                 "Los cachorros son así al principio. Seguro que se calma en unas semanas."),
                ("Vi una película sobre el océano,", "y ahora quiero aprender a bucear.",
                 "Bucear es una gran idea. Un curso para principiantes sería un buen comienzo."),
            ],
            "task-oriented": [
                ("Necesito reservar una mesa para cuatro,", "en un sitio tranquilo el viernes por la noche.",
                 "Le ayudo con eso. Un sitio tranquilo el viernes por la noche para cuatro personas."),
                ("¿Puede cambiar mi cita con el dentista,", "quizá al martes por la tarde?",
                 "Claro. Buscaré un hueco libre el martes por la tarde y la cambiaré."),
                ("Quiero enviar un paquete a mi hermana,", "es pequeño pero bastante pesado.",
                 "Para un paquete pequeño y pesado, el correo certificado suele ser lo más barato."),
            ],
            "instructional": [
                ("¿Cómo trasplanto una planta,", "sin dañar las raíces?",
                 "Riégala el día antes, afloja la tierra con cuidado y saca todo el cepellón de una vez."),
                ("¿Cuál es la mejor forma de limpiar una sartén de hierro,", "después de hacer huevos?",
                 "Enjuágala con agua caliente, frótala con suavidad, sécala al fuego y ponle un poco de aceite."),
                ("¿Me explica cómo cambiar la rueda de una bici,", "paso a paso?",
                 "Primero suelte el freno, luego quite la rueda y saque la cubierta de la llanta."),
            ],
            "storytelling": [
                ("Cuénteme una historia sobre un farero,", "que encuentra un mensaje en una botella.",
                 "Había una vez una farera llamada Ada que encontró una botella entre las rocas una noche de tormenta."),
                ("¿Me cuenta una historia sobre un dragón,", "que tiene miedo a la oscuridad?",
                 "Había una vez un dragoncito que dormía con una piedra brillante junto a la cama."),
                ("Me encantaría una historia corta sobre un zorro,", "en una ciudad nevada.",
                 "En una ciudad cubierta de nieve, un zorro listo aprendió a subir al tranvía de la mañana."),
            ],
            "argument": [
                ("Creo que las ciudades deberían prohibir los coches en el centro,", "porque el aire es horrible.",
                 "El aire limpio importa, pero las tiendas y los repartos necesitan poder entrar al centro."),
                ("Sinceramente, los deberes son una pérdida de tiempo,", "los niños deberían jugar después del colegio.",
                 "Jugar es importante, aunque un poco de práctica en casa ayuda a muchos niños a recordar."),
                ("Trabajar desde casa es simplemente mejor,", "ya nadie necesita una oficina.",
                 "A mucha gente le gusta, aunque algunos equipos echan de menos hablar cara a cara."),
            ],
        },
        backchannels=("Ajá.", "Claro.", "Sí.", "Vale.", "Ya veo."),
        interrupts=("Espere, perdone, ¿puedo preguntar algo antes?", "Un momento, eso no es lo que quería decir.",
                    "Perdone que le interrumpa, ¿puede ser más breve?"),
        background=("¿Alguien ha visto mis llaves?", "El autobús vuelve a llegar tarde.", "Baja la música, por favor."),
        go_ahead="Claro, adelante.",
        hello="Hola.",
    ),
    "de": Bank(
        turns={
            "casual": [
                ("Ich war endlich in der neuen Bäckerei,", "und das Brot war noch warm.",
                 "Das klingt schön. Warmes Brot am Morgen ist schwer zu schlagen."),
                ("Mein Nachbar hat seit letzter Woche einen Welpen,", "und er bellt jeden Vogel an.",
                 "Welpen sind am Anfang so. In ein paar Wochen wird er sich sicher beruhigen."),
                ("Ich habe einen Film über das Meer gesehen,", "und jetzt will ich tauchen lernen.",
                 "Tauchen ist eine tolle Idee. Ein Anfängerkurs an der Küste wäre ein guter Start."),
            ],
            "task-oriented": [
                ("Ich muss einen Tisch für vier reservieren,", "irgendwo ruhig am Freitagabend.",
                 "Dabei helfe ich gern. Ein ruhiger Ort am Freitagabend für vier Personen, notiert."),
                ("Können Sie meinen Zahnarzttermin verschieben,", "vielleicht auf nächsten Dienstagnachmittag?",
                 "Sicher. Ich suche am Dienstagnachmittag einen freien Termin und verschiebe ihn dorthin."),
                ("Ich möchte meiner Schwester ein Paket schicken,", "es ist klein, aber ziemlich schwer.",
                 "Für ein kleines schweres Paket ist ein Paketdienst mit Sendungsverfolgung meist am günstigsten."),
            ],
            "instructional": [
                ("Wie topfe ich eine Pflanze um,", "ohne die Wurzeln zu verletzen?",
                 "Gießen Sie sie am Tag davor, lockern Sie die Erde vorsichtig und heben Sie den ganzen Ballen heraus."),
                ("Wie reinige ich am besten eine gusseiserne Pfanne,", "nachdem ich Eier gebraten habe?",
                 "Mit heißem Wasser abspülen, sanft schrubben, auf dem Herd trocknen und etwas Öl auftragen."),
                ("Können Sie erklären, wie man einen Fahrradreifen wechselt,", "Schritt für Schritt?",
                 "Lösen Sie zuerst die Bremse, nehmen Sie dann das Rad ab und hebeln Sie den Reifen von der Felge."),
            ],
            "storytelling": [
                ("Erzählen Sie mir eine Geschichte über einen Leuchtturmwärter,", "der eine Flaschenpost findet.",
                 "Es war einmal eine Wärterin namens Ada, die in einer stürmischen Nacht eine Flasche fand."),
                ("Können Sie mir eine Geschichte über einen Drachen erzählen,", "der Angst im Dunkeln hat?",
                 "Es war einmal ein kleiner Drache, der mit einem leuchtenden Stein neben dem Bett schlief."),
                ("Ich hätte gern eine kurze Geschichte über einen Fuchs,", "in einer verschneiten Stadt.",
                 "In einer verschneiten Stadt lernte ein schlauer Fuchs, mit der Straßenbahn zu fahren."),
            ],
            "argument": [
                ("Ich finde, Städte sollten Autos in der Innenstadt verbieten,", "weil die Luft furchtbar ist.",
                 "Saubere Luft ist wichtig, aber Geschäfte und Lieferungen müssen in die Stadt kommen."),
                ("Ehrlich gesagt sind Hausaufgaben Zeitverschwendung,", "Kinder sollten nach der Schule spielen.",
                 "Spielen ist wichtig, doch ein wenig Übung zu Hause hilft vielen Kindern beim Merken."),
                ("Homeoffice ist einfach besser,", "niemand braucht mehr ein Büro.",
                 "Viele mögen es, aber manche Teams vermissen das Gespräch von Angesicht zu Angesicht."),
            ],
        },
        backchannels=("Aha.", "Genau.", "Ja.", "Okay.", "Verstehe."),
        interrupts=("Moment, Entschuldigung, darf ich zuerst etwas fragen?", "Halt, so habe ich das nicht gemeint.",
                    "Entschuldigung, können Sie es kürzer machen?"),
        background=("Hat jemand meine Schlüssel gesehen?", "Der Bus ist schon wieder zu spät.",
                    "Mach bitte die Musik leiser."),
        go_ahead="Natürlich, bitte sprechen Sie.",
        hello="Hallo.",
    ),
    "zh": Bank(
        turns={
            "casual": [
                ("我终于去了那家新开的面包店，", "面包还是热的。", "听起来真不错。早上的热面包最好吃了。"),
                ("我邻居上周养了一只小狗，", "它看见每只鸟都叫。", "小狗一开始都这样，过几个星期就会安静下来。"),
                ("我看了一部关于海洋的电影，", "现在我想学潜水。", "学潜水是个好主意，可以先在海边上一个初级课程。"),
            ],
            "task-oriented": [
                ("我要订一张四个人的桌子，", "星期五晚上，找个安静的地方。", "我来帮您。星期五晚上，四个人，安静的地方，记下了。"),
                ("能帮我改一下看牙的时间吗，", "改到下星期二下午？", "可以。我找一下星期二下午的空位，帮您改过去。"),
                ("我想给我妹妹寄一个包裹，", "包裹不大但是很重。", "又小又重的包裹，用可以查询的邮政服务通常最便宜。"),
            ],
            "instructional": [
                ("怎么给植物换盆，", "才不会伤到根？", "前一天先浇水，轻轻松土，然后把整个根团一起拿出来。"),
                ("铸铁锅怎么洗最好，", "刚煎过鸡蛋的？", "用热水冲一下，轻轻刷，放在炉子上烘干，再抹一点油。"),
                ("你能一步一步地讲一下，", "怎么换自行车胎吗？", "先松开刹车，再把车轮卸下来，然后把轮胎从轮圈上撬下来。"),
            ],
            "storytelling": [
                ("给我讲一个灯塔看守人的故事，", "他在瓶子里发现了一封信。", "从前有一个叫阿达的看守人，在一个暴风雨的夜里捡到了一个瓶子。"),
                ("你能讲一个小龙的故事吗，", "它很怕黑。", "从前有一条小龙，睡觉的时候床边总放着一块发光的石头。"),
                ("我想听一个关于狐狸的短故事，", "发生在一座下雪的城市里。", "在一座下满雪的城市里，一只聪明的狐狸学会了坐早上的电车。"),
            ],
            "argument": [
                ("我觉得城市中心应该禁止开车，", "因为空气太差了。", "空气干净很重要，但是商店和送货也需要进城。"),
                ("说实话，家庭作业就是浪费时间，", "孩子放学以后就应该玩。", "玩很重要，不过在家练习一下能帮很多孩子记住。"),
                ("在家工作就是更好，", "谁都不再需要办公室了。", "很多人喜欢，不过有些团队说很想念面对面的交流。"),
            ],
        },
        backchannels=("嗯。", "对。", "是的。", "好。", "明白。"),
        interrupts=("等一下，对不起，我能先问个问题吗？", "等等，我不是这个意思。", "不好意思打断一下，能说短一点吗？"),
        background=("有人看见我的钥匙了吗？", "公交车又晚点了。", "请把音乐关小一点。"),
        go_ahead="好的，请说。",
        hello="你好。",
    ),
}
"""language code → its bank (English's are the generator's own)"""
