"""Sentence frames of the procedural generator: how a fact, a filler, a request or a resolution is said.

Frames are grouped by what the turn does (label) so that the label of a
generated turn is right by construction: `N2` frames address another human by
name or another device; `N3` frames are self-talk; `N1` frames mention Aria
without asking anything; request frames either name Aria (explicit) or do not
(implicit). Variety comes from combining these with the register, the
relationship, the activity and the task's own words — there is no single
template with slots.
"""

from __future__ import annotations

from floorbench.suites.mpe.vocab import SideQuestion

# {c} = the fact clause(s); {name} = another human; {group} = the whole group
FACT_N2 = (
    "{name}, {c}.",
    "{C}, {name}.",
    "{name}, just so you know, {c}.",
    "{name}, I checked: {c}.",
    "Hey {name}, {c}.",
    "{name}, remember, {c}.",
    "{name}, I meant to tell you, {c}.",
    "{Group}, {c}.",
    "Okay {group}, {c}.",
    "{name}, you'll like this: {c}.",
)
FACT_N3 = (
    "Hmm. {C}... okay.",
    "So {c}. Right.",
    "Let me see. {C}.",
    "{C}. I should write that down.",
    "Note to self: {c}.",
    "{C}, if I remember right. Yes.",
    "Okay, so {c}. Got it.",
)
FACT_N1 = (
    "I asked Aria to note it down earlier: {c}.",
    "Aria reminded me this morning that {c}.",
    "{C}, and yes, Aria, I know you heard that too.",
    "Aria already has it in the notes that {c}.",
    "I saw it on Aria's screen earlier, {c}.",
)
# frames that also fit a first-person clause ("I'll be bringing the cake")
FACT_N2_FIRST = (
    "{name}, {c}.",
    "{C}, {name}.",
    "Hey {name}, {c}.",
    "{name}, just so you know, {c}.",
    "{Group}, {c}.",
    "Okay {group}, {c}.",
)
JOIN = (", and {c2}", ". Also, {c2}", ", plus {c2}", ". Oh, and {c2}")

FILLER_N1 = (
    "{thing} keeps lighting up whenever someone says Aria.",
    "I still can't believe Aria knew the name of that song.",
    "Aria's been really useful this week, honestly.",
    "My brother set up Aria for his parents and they love her.",
    "Careful, Aria hears everything in here.",
    "I think Aria's voice is a bit loud today.",
    "Honestly, Aria has better taste in music than {name}.",
    "We got Aria mainly for the timers, if I'm honest.",
    "Aria read us the news this morning, it was all bad.",
    "I keep calling Aria by the wrong name.",
    "{name} talks to Aria more than to any of us.",
    "Aria woke me up right on time today.",
)
FILLER_N1_AFTER = (
    "Thanks, Aria, that's what I thought.",
    "Aria's quicker than any of us at that.",
    "Good old Aria.",
    "See, that's why we keep Aria around.",
)
FILLER_N2 = (
    "{name}, are you even listening?",
    "{name}, can you grab me a glass of water?",
    "{name}, what do you think?",
    "{name}, your phone's buzzing.",
    "{Group}, give me two minutes.",
    "{name}, did you see the message from your sister?",
    "{name}, sit down, you're making me nervous.",
    "{name}, is it just me or is it cold in here?",
)
FILLER_N2_AFTER = (
    "{name}, told you it was about that.",
    "Right, {name}, let's get on with it.",
    "{name}, can you write that down somewhere?",
    "Okay {group}, sorted then.",
    "{name}, that's less bad than I thought.",
)
FILLER_N3 = (
    "Where did I put my glasses...",
    "Okay. Focus.",
    "Ugh, my phone's on two percent.",
    "What was I saying... no idea.",
    "Mm, this coffee's gone cold.",
    "Hang on, hang on.",
    "Why is nothing ever where I left it.",
    "I really need a holiday.",
)

# explicit requests name Aria; {q} direct question, {iq} indirect question, {p} please-ish
REQUEST_EXPLICIT = (
    "Aria, {q}?",
    "{Q}, Aria?",
    "Hey Aria, {q}?",
    "Aria, can you tell us {iq}{p}?",
    "Aria, quick question: {q}?",
    "Aria, could you work out {iq}{p}?",
    "Aria, do you know {iq}?",
    "Okay Aria, {q}?",
    "So, Aria, {q}?",
)
# implicit requests: no name; the context (a human who cannot or will not answer, a device-directed form) makes the addressee clear
REQUEST_IMPLICIT = (
    "{Q}?",
    "Can you work out {iq}{p}?",
    "Could you tell us {iq}{p}?",
    "Okay, {q}?",
    "Let's just ask. {Q}?",
    "Quick question, then: {q}?",
    "So, {q}?",
    "Can somebody smarter than us tell me {iq}?",
)
# appended to the turn before an implicit request (its label is unchanged); the speaker gives up on the question
IMPLICIT_CUES = (
    "I can't keep all of that in my head, though.",
    "Don't ask me, I've lost track.",
    "I wasn't really following, sorry.",
    "My brain is not working today.",
    "I've completely lost track of it all.",
    "Somebody who was paying attention should know.",
    "Don't look at me for the details.",
)
IMPLICIT_CUES_NUMERIC = (
    "I can't add that up in my head, though.",
    "Don't ask me for the maths, I'm hopeless with numbers.",
    "I'm not doing sums right now.",
    "I've lost count, honestly.",
)

N4Q_FRAMES = ("Aria, {q}", "Hey Aria, {q}", "Aria, quick one: {q}", "Sorry, Aria, {q}")
N4R_NEVER_MIND = (
    "Oh, never mind, I found it.",
    "Actually, forget it, it's written right here.",
    "No wait, never mind, I've got it.",
    "Never mind, I'll look it up later.",
    "Forget it, it doesn't matter.",
)
N4R_OTHER = ("{A}.", "{asker}, {a}.", "I know this one, {a}.", "Oh, {a}.", "{asker}, I can tell you: {a}.")

GENERIC_SIDE_QUESTIONS = (
    SideQuestion("how do you spell rhythm?",
                 "Rhythm is spelled R, H, Y, T, H, M. It's one of the few English words with no regular vowel in it.",
                 "R, H, Y, T, H, M"),
    SideQuestion("what's the capital of Australia?",
                 "The capital of Australia is Canberra, not Sydney, which surprises quite a lot of people.",
                 "it's Canberra, everyone gets that wrong"),
    SideQuestion("what time is sunset today?",
                 "Sunset today should be at around a quarter past eight in the evening, give or take a few minutes.",
                 "about eight, it's on my weather app"),
    SideQuestion("how many tablespoons are in a cup?",
                 "There are sixteen tablespoons in a standard American cup, which is about two hundred and forty millilitres.",
                 "sixteen, I looked it up last week"),
    SideQuestion("who sings this song?",
                 "This sounds like a song from the nineteen eighties; I think it's by a British band, but let me check to be sure.",
                 "it's the Cure, obviously"),
    SideQuestion("what's the date next Saturday?",
                 "Next Saturday is the fourteenth. If you'd like, I can add a reminder for it to your calendar.",
                 "the fourteenth, it's on the fridge calendar"),
)
