"""Fixed vocabularies of the procedural `mpe` generator (documented in docs/scenarios.md).

The five scenario attributes — location, shared activity, relationship, device
context, register — each come from one list here. Each activity carries its own
lexicon (things with prices, places with distances, events with times,
countable things, choices, jobs, chatter and side questions), which the task
families in `tasks.py` draw their evidence from. An activity lists the
locations it can happen in, and a device context the kinds of location it fits,
so a combination is always plausible (nobody cooks dinner on a motorway).
"""

from __future__ import annotations

from dataclasses import dataclass

# --------------------------------------------------------------------------- locations

LOCATIONS: dict[str, str] = {
    # name -> kind
    "kitchen": "home",
    "living room": "home",
    "dining room": "home",
    "back garden": "home",
    "home office": "home",
    "garage workshop": "home",
    "car on a motorway": "vehicle",
    "minivan on a country road": "vehicle",
    "camper van": "vehicle",
    "office meeting room": "work",
    "open-plan office": "work",
    "shared university lab": "work",
    "hotel lobby": "public",
    "corner café": "public",
    "train station concourse": "public",
    "airport departure gate": "public",
    "supermarket car park": "public",
    "community hall": "public",
    "campsite": "outdoor",
    "park picnic spot": "outdoor",
    "beach": "outdoor",
    "ski lodge terrace": "outdoor",
}

# --------------------------------------------------------------------------- devices

@dataclass(frozen=True)
class Device:
    """Where Aria runs, and what people call the device itself."""

    name: str
    kinds: tuple[str, ...]
    thing: str
    """how a human refers to the device, e.g. 'the speaker'"""


DEVICES: tuple[Device, ...] = (
    Device("smart speaker on the counter", ("home", "work", "public"), "the speaker"),
    Device("phone on speaker in the middle of the table", ("home", "work", "public", "outdoor", "vehicle"), "the phone"),
    Device("car dashboard assistant", ("vehicle",), "the dashboard"),
    Device("laptop open in a video call", ("home", "work", "public"), "the laptop"),
    Device("smart display on the wall", ("home", "work"), "the screen"),
    Device("tablet propped against a water bottle", ("outdoor", "public", "home", "vehicle"), "the tablet"),
    Device("portable speaker clipped to a backpack", ("outdoor", "public"), "the little speaker"),
)

OTHER_DEVICE_COMMANDS: tuple[str, ...] = (
    "Hey Siri, set a timer for {n} minutes.",
    "Alexa, turn the volume down a bit.",
    "OK Google, what's on my calendar tomorrow?",
    "Hey Siri, text Jamie that we're running late.",
    "Alexa, add batteries to my shopping list.",
    "OK Google, remind me to call the dentist at {n}.",
    "Hey Siri, play some quiet jazz.",
    "Alexa, stop.",
    "OK Google, how's the traffic into town?",
    "Hey Siri, turn on do not disturb.",
    "Alexa, what's the weather on Sunday?",
    "OK Google, call Mum.",
)

# --------------------------------------------------------------------------- relationships

@dataclass(frozen=True)
class Relationship:
    name: str
    group: tuple[str, ...]
    """ways to address the whole group"""
    chatter: tuple[str, ...]
    """relationship small talk addressed to one person ({name} is the addressee)"""


RELATIONSHIPS: tuple[Relationship, ...] = (
    Relationship("family", ("everyone", "you lot"), (
        "{name}, did you ever call Grandma back?",
        "{name}, your shoes are in the hallway again.",
        "{name}, remember we're at your aunt's on Sunday.",
    )),
    Relationship("roommates", ("guys", "everyone"), (
        "{name}, whose turn is it to take the bins out?",
        "{name}, the landlord texted about the boiler again.",
        "{name}, did you eat my yoghurt?",
    )),
    Relationship("old friends", ("guys", "you two", "folks"), (
        "{name}, you still owe me for the concert, by the way.",
        "{name}, this is exactly like that trip in 2019.",
        "{name}, have you heard from Marco lately?",
    )),
    Relationship("coworkers", ("team", "everyone", "folks"), (
        "{name}, did the client ever reply to your email?",
        "{name}, I moved our one-to-one to Thursday.",
        "{name}, are you presenting on Monday or am I?",
    )),
    Relationship("neighbours", ("everyone", "all of you"), (
        "{name}, your hedge is looking very tidy these days.",
        "{name}, did the parcel for number nine end up with you?",
        "{name}, are you coming to the street meeting?",
    )),
    Relationship("classmates", ("guys", "everyone"), (
        "{name}, did you finish the reading for Tuesday?",
        "{name}, can I borrow your notes from last week?",
        "{name}, the professor moved the deadline again.",
    )),
    Relationship("teammates", ("team", "guys"), (
        "{name}, how's the knee holding up?",
        "{name}, coach wants us in early on Saturday.",
        "{name}, did you bring the spare shirts?",
    )),
    Relationship("a couple and their friend", ("you two", "everyone"), (
        "{name}, did you lock the back door?",
        "{name}, your mother called while you were out.",
        "{name}, we still need to book the anniversary dinner.",
    )),
)

# --------------------------------------------------------------------------- registers

@dataclass(frozen=True)
class Register:
    """How people talk: openers before statements, tails after them, politeness in requests."""

    name: str
    openers: tuple[str, ...]
    tails: tuple[str, ...]
    please: tuple[str, ...]
    expand_contractions: bool = False


REGISTERS: tuple[Register, ...] = (
    Register("casual", ("", "", "Oh, ", "So, ", "Yeah, ", "Okay, "), ("", "", " Anyway.", " Just saying."), ("", "", ", please")),
    Register("formal", ("", "", "For the record, ", "Just to confirm, ", "If I may, "), ("", "", " Thank you."), (", please", "", ", if you would"), True),
    Register("playful", ("", "Fun fact: ", "Okay, drumroll: ", "Brace yourselves, "), ("", "", " Don't all cheer at once.", " Ha."), ("", ", pretty please", "")),
    Register("hurried", ("", "Quick one, ", "Okay okay, ", "Right, fast: "), ("", "", " We need to move."), (", quickly", "", ", fast")),
    Register("terse", ("", "", ""), ("", ""), ("", "")),
)

# --------------------------------------------------------------------------- people and voices

FEMALE_NAMES: tuple[str, ...] = (
    "Maya", "Priya", "Helen", "Grace", "Sofia", "Amara", "Chloe", "Ingrid", "Leila", "Nadia",
    "Rosa", "Hannah", "Mei", "Fatima", "Claire", "Olivia", "Zoe", "Elena", "Yuki", "Ruth",
    "Anika", "Beatrice", "Carmen", "Diana", "Esther", "Freya", "Gemma", "Irene", "Julia", "Keiko",
)
MALE_NAMES: tuple[str, ...] = (
    "Tom", "Jonas", "Marcus", "Ravi", "Oliver", "Dev", "Sam", "Peter", "Leo", "Luis",
    "Omar", "Felix", "Hugo", "Kenji", "Daniel", "Ethan", "Noah", "Pablo", "Ivan", "George",
    "Arjun", "Ben", "Carlos", "David", "Emil", "Frank", "Henry", "Isaac", "Kwame", "Lars",
)

SPEAKER_VOICES: dict[str, tuple[str, str]] = {
    # speaker id -> (voice id, gender of the names drawn for it): a fixed speaker→voice map
    "A": ("festival:slt_hts", "f"),
    "B": ("flite:awb", "m"),
    "C": ("flite:kal16", "m"),
    "D": ("flite:rms", "m"),
}
PREAMBLE_VOICE = "piper:joe"

CURRENCIES: tuple[str, ...] = ("dollars", "euros", "pounds")
DISTANCE_UNITS: tuple[str, ...] = ("kilometres", "miles")

# --------------------------------------------------------------------------- activities


@dataclass(frozen=True)
class SideQuestion:
    """An N4 question to Aria that a human resolves."""

    question: str
    """the question core, no name, ends with '?'"""
    attempt: str
    """what an eager assistant starts to say (long enough to take > 3.5 s)"""
    human_answer: str
    """another human's answer"""


@dataclass(frozen=True)
class Activity:
    name: str
    locations: tuple[str, ...]
    """where it can plausibly happen (each one a key of LOCATIONS)"""
    items: tuple[tuple[str, int, int], ...] = ()
    """things paid for: (noun phrase, lowest price, highest price)"""
    places: tuple[tuple[str, int, int], ...] = ()
    """places travelled to: (noun phrase, km low, km high)"""
    events: tuple[tuple[str, int, int], ...] = ()
    """things happening at a clock time: (noun phrase, earliest hour, latest hour)"""
    spans: tuple[tuple[str, int, int], ...] = ()
    """things that take time: (noun phrase, min minutes, max minutes)"""
    countables: tuple[tuple[str, int, int], ...] = ()
    """things people bring/count: (plural noun, low, high)"""
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(what is chosen, options), e.g. ('to eat', ('the curry', ...))"""
    jobs: tuple[str, ...] = ()
    """things someone will do, as '-ing' phrases: 'bringing the cake'"""
    chatter: tuple[str, ...] = ()
    """lines to one person ({name} is the addressee)"""
    mutter: tuple[str, ...] = ()
    """self-talk"""
    side_questions: tuple[SideQuestion, ...] = ()


ACTIVITIES: tuple[Activity, ...] = (
    Activity(
        "cooking dinner",
        ("kitchen", "dining room", "back garden", "camper van", "campsite"),
        items=(("the salmon", 12, 28), ("the vegetables", 5, 14), ("the wine", 8, 24), ("the cheese", 6, 15),
               ("the fresh pasta", 4, 9), ("the olive oil", 7, 16), ("the dessert", 5, 12)),
        spans=(("the roast", 60, 120), ("the rice", 15, 25), ("the bread dough", 40, 90)),
        events=(("dinner with the guests", 18, 20),),
        countables=(("eggs", 2, 8), ("plates", 3, 8)),
        choices=(("for the main", ("the lasagne", "the curry", "the fish tacos", "the risotto")),),
        jobs=("making the salad", "doing the washing up", "setting the table", "picking up the dessert"),
        chatter=("{name}, can you pass me the big pan?", "{name}, taste this and tell me if it needs salt.",
                 "{name}, don't open the oven yet."),
        mutter=("Where did I put the garlic press...", "Two cups of stock, or was it three...",
                "Okay, onions first, then the garlic.", "Hmm, this smells a bit burnt."),
        side_questions=(
            SideQuestion("how long should I boil an egg for a runny yolk?",
                         "For a runny yolk, boil the egg for about six minutes, then put it straight into cold water.",
                         "six minutes, then straight into cold water"),
            SideQuestion("can you freeze cooked rice?",
                         "Yes, you can freeze cooked rice. Let it cool quickly and keep it for up to a month in the freezer.",
                         "yes, just cool it quickly first"),
            SideQuestion("what can I use instead of buttermilk?",
                         "You can use milk with a spoonful of lemon juice or vinegar stirred in, and let it stand for ten minutes.",
                         "milk with a bit of lemon juice works fine"),
        ),
    ),
    Activity(
        "planning a weekend trip",
        ("kitchen", "living room", "dining room", "home office", "corner café", "hotel lobby", "train station concourse", "office meeting room", "open-plan office", "ski lodge terrace"),
        items=(("the hotel", 90, 220), ("the train tickets", 30, 90), ("the museum passes", 15, 40),
               ("the boat tour", 20, 60), ("the car hire", 40, 120), ("the concert tickets", 35, 95)),
        places=(("the old town", 5, 40), ("the lake", 20, 120), ("the castle", 15, 90), ("the vineyard", 10, 60)),
        events=(("the train", 7, 11), ("the boat tour", 10, 16), ("check-in", 14, 17), ("the dinner reservation", 18, 21)),
        spans=(("the train ride", 80, 240), ("the walking tour", 60, 150)),
        choices=(("for the Saturday", ("the castle", "the lake", "the food market", "the art museum")),),
        jobs=("booking the hotel", "printing the tickets", "packing the snacks", "checking the weather"),
        chatter=("{name}, did you find your passport?", "{name}, do we need the adapter plugs?",
                 "{name}, send me the booking confirmation."),
        mutter=("Sunglasses, charger, toothbrush...", "Why is this website so slow.", "Okay, page two of the reviews."),
        side_questions=(
            SideQuestion("do I need a visa for a weekend in Switzerland?",
                         "It depends on your passport. Many European and American travellers can visit Switzerland for short stays without a visa.",
                         "not with your passport, no"),
            SideQuestion("what's the weather like there this weekend?",
                         "The forecast for this weekend looks mild, with some sunshine on Saturday and a chance of showers on Sunday afternoon.",
                         "sunny on Saturday, rain on Sunday, I checked this morning"),
        ),
    ),
    Activity(
        "splitting the bill after dinner",
        ("corner café", "hotel lobby", "dining room", "ski lodge terrace"),
        items=(("the starters", 12, 30), ("the mains", 45, 110), ("the wine", 20, 60), ("the desserts", 10, 28),
               ("the coffees", 6, 14), ("the tip", 8, 25)),
        choices=(("for dessert", ("the tiramisu", "the cheesecake", "the sorbet", "the brownie")),),
        jobs=("paying the tip", "calling the taxi", "getting the coats"),
        chatter=("{name}, do you have any cash on you?", "{name}, is that your scarf on the chair?",
                 "{name}, can you ask them for the card machine?"),
        mutter=("Where's my wallet... front pocket? No.", "I am so full.", "Hmm, was that two coffees or three."),
        side_questions=(
            SideQuestion("what's a normal tip here?",
                         "A normal tip is around ten to fifteen percent of the bill, though some restaurants already include a service charge.",
                         "it's already on the bill, look, service included"),
        ),
    ),
    Activity(
        "organising a birthday party",
        ("kitchen", "living room", "back garden", "community hall", "park picnic spot", "office meeting room", "open-plan office", "garage workshop"),
        items=(("the cake", 25, 70), ("the balloons", 5, 18), ("the decorations", 10, 35), ("the pizzas", 30, 90),
               ("the drinks", 15, 45), ("the present", 20, 80)),
        events=(("the party", 14, 19), ("the cake pickup", 11, 15)),
        spans=(("the magician's show", 30, 60), ("the setup", 45, 120)),
        countables=(("guests", 4, 15), ("chairs", 2, 10), ("party hats", 5, 20)),
        choices=(("for the cake", ("chocolate", "lemon", "carrot cake", "vanilla with berries")),),
        jobs=("bringing the cake", "blowing up the balloons", "picking up the pizzas", "making the playlist"),
        chatter=("{name}, hide the present before she gets home.", "{name}, can you tape this banner up?",
                 "{name}, did you sign the card?"),
        mutter=("Balloons, balloons... where is the pump.", "Candles, matches, plates. Okay.",
                "I really hope it doesn't rain."),
        side_questions=(
            SideQuestion("how many pizzas do we need for twelve people?",
                         "For twelve people you would usually want about five or six large pizzas, depending on how hungry everyone is.",
                         "five large ones is plenty, we did that last year"),
        ),
    ),
    Activity(
        "moving house",
        ("living room", "kitchen", "garage workshop", "minivan on a country road", "car on a motorway", "supermarket car park"),
        items=(("the van hire", 60, 150), ("the boxes", 15, 45), ("the packing tape", 4, 12), ("the cleaning", 80, 200),
               ("the new mattress", 150, 400)),
        places=(("the new flat", 5, 60), ("the storage unit", 3, 25), ("the recycling centre", 2, 15)),
        events=(("the van pickup", 7, 10), ("the key handover", 12, 17)),
        spans=(("loading the van", 60, 180), ("the drive over", 20, 90)),
        countables=(("boxes", 4, 20), ("chairs", 2, 6)),
        jobs=("carrying the sofa", "returning the van", "labelling the boxes", "cleaning the oven"),
        chatter=("{name}, mind the door frame!", "{name}, which box has the kettle in it?",
                 "{name}, lift with your legs, not your back."),
        mutter=("Kitchen, kitchen, bedroom... who labelled these.", "Where on earth is the tape gun.", "My back is not happy."),
        side_questions=(
            SideQuestion("do I need to tell the council I've moved?",
                         "Yes, you should update your address with the council, mainly for council tax and the electoral register.",
                         "you do, I did it online in five minutes"),
        ),
    ),
    Activity(
        "a long road trip",
        ("car on a motorway", "minivan on a country road", "camper van"),
        items=(("the fuel", 40, 95), ("the tolls", 8, 30), ("the motel", 60, 140), ("the snacks", 6, 20)),
        places=(("the coast", 80, 320), ("the border", 60, 250), ("the next town", 15, 60), ("the lake cabin", 120, 400)),
        events=(("the ferry", 9, 18), ("check-in at the motel", 15, 21)),
        spans=(("the stop for lunch", 30, 60), ("the ferry crossing", 40, 120)),
        choices=(("for lunch", ("the diner", "the service station", "the picnic spot", "the farm shop")),),
        jobs=("driving the next stretch", "navigating", "paying for fuel", "choosing the music"),
        chatter=("{name}, can you pass me the water?", "{name}, you're drifting a bit left.",
                 "{name}, wake me up at the next stop."),
        mutter=("Right lane, right lane... okay.", "Who ate all the crisps.", "Is that a speed camera?"),
        side_questions=(
            SideQuestion("is there a petrol station before the next exit?",
                         "Let me check. There are usually fuel stations along the motorway, and the next one should be in about twenty kilometres.",
                         "there's one right at the next exit, I can see the sign"),
            SideQuestion("what's the speed limit on this road?",
                         "On this kind of road the limit is usually around one hundred kilometres an hour, unless the signs say otherwise.",
                         "it's a hundred, the sign was right there"),
        ),
    ),
    Activity(
        "planning a team offsite",
        ("office meeting room", "open-plan office", "shared university lab", "hotel lobby", "corner café"),
        items=(("the venue", 300, 900), ("the catering", 150, 500), ("the coach", 120, 350), ("the workshop materials", 40, 120)),
        places=(("the venue", 20, 90), ("the airport", 15, 60)),
        events=(("the kick-off", 8, 10), ("the team dinner", 18, 20), ("the coach", 7, 9)),
        spans=(("the strategy session", 60, 180), ("the coach ride", 30, 120)),
        countables=(("people", 8, 25), ("laptops", 3, 10)),
        choices=(("for the workshop", ("design sprint", "roadmap review", "customer panel", "hackathon")),),
        jobs=("booking the coach", "writing the agenda", "ordering the name badges", "sending the invitations"),
        chatter=("{name}, could you send round the agenda?", "{name}, finance wants the budget by Friday.",
                 "{name}, are the slides in the shared folder?"),
        mutter=("Projector cable, projector cable...", "Twelve unread emails. Wonderful.", "Note to self: book the room."),
        side_questions=(
            SideQuestion("what's a good icebreaker for twenty people?",
                         "A simple one is two truths and a lie, where everyone shares three facts about themselves and the others guess which one is false.",
                         "we're doing the map game again, everyone liked it"),
        ),
    ),
    Activity(
        "a camping weekend",
        ("campsite", "camper van", "beach", "minivan on a country road", "park picnic spot"),
        items=(("the pitch", 15, 45), ("the firewood", 5, 15), ("the gas canister", 4, 12), ("the kayak rental", 20, 60)),
        places=(("the waterfall", 3, 12), ("the village shop", 2, 9), ("the summit", 5, 16)),
        events=(("sunset", 19, 21), ("the ranger talk", 10, 16), ("the guided walk", 9, 15)),
        spans=(("the hike to the waterfall", 60, 180), ("the kayak trip", 45, 120)),
        countables=(("tent pegs", 6, 20), ("sleeping bags", 2, 5)),
        choices=(("for the hike", ("the ridge trail", "the river path", "the forest loop", "the summit route")),),
        jobs=("putting up the tent", "fetching water", "lighting the fire", "washing the pans"),
        chatter=("{name}, hold this pole steady.", "{name}, have you seen the torch?", "{name}, zip the tent, the midges are out."),
        mutter=("Where are the matches...", "This ground is all rocks.", "Ow. Nettles."),
        side_questions=(
            SideQuestion("how do you tell if a mushroom is safe to eat?",
                         "You really can't tell safely by looking. Many poisonous mushrooms look like edible ones, so never eat a wild mushroom unless an expert identifies it.",
                         "you don't, you leave it alone"),
        ),
    ),
    Activity(
        "renovating the spare room",
        ("living room", "garage workshop", "home office", "kitchen"),
        items=(("the paint", 25, 80), ("the flooring", 150, 450), ("the new light", 30, 110), ("the skirting boards", 40, 90),
               ("the brushes and rollers", 10, 30)),
        spans=(("the first coat of paint", 120, 240), ("laying the floor", 180, 360)),
        countables=(("tins of paint", 2, 6), ("floor panels", 10, 40)),
        choices=(("for the walls", ("sage green", "warm white", "dusty blue", "terracotta")),),
        jobs=("sanding the door", "taping the edges", "taking the old carpet out", "fitting the light"),
        chatter=("{name}, hand me the flat screwdriver.", "{name}, is this wall straight or is it me?",
                 "{name}, open the window, the fumes are awful."),
        mutter=("Measure twice, cut once.", "Where did the spirit level go...", "Okay, second coat tomorrow."),
        side_questions=(
            SideQuestion("how long should I wait between coats of paint?",
                         "For most water-based paints, wait about two to four hours between coats, but check the instructions on the tin.",
                         "four hours, it says on the tin"),
        ),
    ),
    Activity(
        "studying for the exams",
        ("home office", "kitchen", "living room", "corner café", "shared university lab", "train station concourse"),
        items=(("the textbook", 30, 90), ("the online course", 20, 60), ("the printing", 3, 12), ("the coffee", 3, 9)),
        events=(("the exam", 9, 14), ("the study group", 16, 19), ("the revision lecture", 10, 15)),
        spans=(("the practice paper", 60, 150), ("the lecture recording", 45, 110)),
        countables=(("chapters", 3, 12), ("flashcards", 20, 80)),
        choices=(("to revise first", ("statistics", "organic chemistry", "European history", "contract law")),),
        jobs=("making the flashcards", "booking the study room", "summarising chapter four", "quizzing the others"),
        chatter=("{name}, can I borrow your highlighter?", "{name}, explain question three to me again.",
                 "{name}, are past papers on the portal?"),
        mutter=("Okay, mitochondria, powerhouse of the... no.", "One more page, then coffee.", "Why did I pick this module."),
        side_questions=(
            SideQuestion("what's the difference between mean and median?",
                         "The mean is the sum of all values divided by how many there are, while the median is the middle value when you sort them.",
                         "median is the middle one, mean is the average, it's in the notes"),
        ),
    ),
    Activity(
        "training for a charity run",
        ("park picnic spot", "beach", "living room", "kitchen", "community hall"),
        items=(("the running shoes", 60, 160), ("the entry fee", 20, 55), ("the sports watch", 80, 250), ("the energy gels", 8, 20)),
        places=(("the bridge", 2, 8), ("the park gates", 1, 5), ("the harbour", 3, 11)),
        events=(("the race", 8, 11), ("the group run", 17, 19)),
        spans=(("the long run", 60, 150), ("the warm-up", 10, 20)),
        countables=(("laps", 3, 12), ("sponsors", 5, 25)),
        choices=(("for Sunday", ("the hill loop", "the canal route", "the track session", "the easy jog")),),
        jobs=("collecting the race numbers", "bringing the water", "setting the pace", "booking the physio"),
        chatter=("{name}, your laces are undone.", "{name}, stretch before you go.", "{name}, did you raise much so far?"),
        mutter=("Breathe in, two, three...", "My calves are on fire.", "Okay, last interval."),
        side_questions=(
            SideQuestion("should I eat before a morning run?",
                         "A small snack like a banana or some toast about an hour before a morning run helps most people, especially for longer runs.",
                         "just a banana, that's what I always do"),
        ),
    ),
    Activity(
        "planning a wedding",
        ("living room", "dining room", "corner café", "hotel lobby", "back garden", "community hall"),
        items=(("the flowers", 200, 800), ("the photographer", 600, 1800), ("the band", 500, 1500), ("the cake", 150, 450),
               ("the invitations", 60, 200)),
        places=(("the church", 2, 20), ("the reception venue", 5, 40)),
        events=(("the ceremony", 12, 16), ("the first dance", 19, 21), ("the rehearsal", 17, 19)),
        spans=(("the speeches", 20, 60), ("the photo session", 45, 120)),
        countables=(("guests", 40, 120), ("tables", 5, 15)),
        choices=(("for the first dance", ("the jazz standard", "the slow ballad", "the swing number", "the folk song")),),
        jobs=("writing the seating plan", "calling the florist", "collecting the suit", "booking the cars"),
        chatter=("{name}, your mum wants a table near the front.", "{name}, did the printer send the proofs?",
                 "{name}, please don't invite your whole team."),
        mutter=("Table six, table seven...", "Breathe. It's just a party.", "Ivory or cream, ivory or cream..."),
        side_questions=(
            SideQuestion("how long should a best man's speech be?",
                         "A best man's speech usually works best at around five to seven minutes, long enough for a story or two without dragging.",
                         "five minutes, tops, or people get restless"),
        ),
    ),
    Activity(
        "waiting for a delayed flight",
        ("airport departure gate", "hotel lobby"),
        items=(("the sandwiches", 12, 30), ("the lounge passes", 30, 80), ("the taxi", 35, 90), ("the parking", 25, 70)),
        events=(("boarding", 13, 21), ("the connecting flight", 15, 23)),
        spans=(("the delay", 40, 180), ("the flight", 90, 300)),
        choices=(("to eat", ("the noodle bar", "the sandwich place", "the pub", "the sushi counter")),),
        jobs=("watching the bags", "finding a charger", "checking the board", "getting the coffees"),
        chatter=("{name}, watch the bags for a second?", "{name}, did they announce our gate?",
                 "{name}, do you have a pen for the landing card?"),
        mutter=("Delayed. Again.", "Where is a plug socket in this place.", "Gate B twelve, B twelve..."),
        side_questions=(
            SideQuestion("can I take a power bank in my hand luggage?",
                         "Yes, power banks must go in your hand luggage rather than checked bags, usually up to one hundred watt hours.",
                         "yes, it has to be in the hand luggage actually"),
        ),
    ),
    Activity(
        "running a bake sale",
        ("community hall", "kitchen", "open-plan office", "supermarket car park"),
        items=(("the flour and sugar", 10, 25), ("the cupcake cases", 3, 8), ("the table hire", 15, 40),
               ("the signs", 5, 15), ("the butter", 6, 14)),
        events=(("the sale", 9, 12), ("the school pickup", 15, 16)),
        spans=(("the brownies in the oven", 25, 40), ("the icing", 20, 45)),
        countables=(("cupcakes", 12, 48), ("cookies", 20, 60), ("helpers", 3, 8)),
        choices=(("to bake", ("brownies", "lemon bars", "flapjacks", "carrot cupcakes")),),
        jobs=("running the cash box", "making the signs", "setting up the table", "bringing the cool box"),
        chatter=("{name}, are these the nut-free ones?", "{name}, can you price the flapjacks?",
                 "{name}, the float is in the blue tin."),
        mutter=("Twelve, thirteen, fourteen cupcakes...", "Don't eat the stock. Don't eat the stock.", "Where is the cash box key."),
        side_questions=(
            SideQuestion("how long do brownies keep?",
                         "Brownies keep for about three to four days in an airtight container at room temperature, or longer in the fridge.",
                         "three days easily, I made them Monday last time"),
        ),
    ),
)


def locations_for(activity: Activity) -> list[str]:
    return list(activity.locations)


def devices_for(location: str) -> list[Device]:
    kind = LOCATIONS[location]
    return [d for d in DEVICES if kind in d.kinds]


def vocabulary() -> dict[str, set[str]]:
    """The allowed values of each scenario attribute."""
    return {
        "location": set(LOCATIONS),
        "activity": {a.name for a in ACTIVITIES},
        "relationship": {r.name for r in RELATIONSHIPS},
        "device_context": {d.name for d in DEVICES},
        "register": {r.name for r in REGISTERS},
    }
