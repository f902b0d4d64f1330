"""The builtin entity registry: the keys the rule reasoner writes, each with a few
prototype statements. Extend it with your own `RegistryEntry(..., examples=...)`:
the rule reasoner classifies a sentence that no pattern reads to the entry with the
nearest examples (see docs/design.md, "Extraction")."""

from __future__ import annotations

from .registry import RegistryEntry

NOTES_ENTITY = "user.notes"

BUILTIN_ENTRIES: tuple[RegistryEntry, ...] = (
    RegistryEntry(
        "user.timezone", "the user's time zone, e.g. PST, CET, UTC+2", "one", ("user.time_zone", "user.tz"),
        ("My time zone is PST", "I'm on Eastern time", "I'm in the Pacific time zone", "Schedule my calls in CET",
         "I'm UTC+2", "Use Central European Time for my meetings", "I switched to Mountain time"),
    ),
    RegistryEntry(
        "user.location", "the city or country where the user lives", "one", ("user.city", "user.home"),
        ("I live in Berlin", "I moved to New York", "I'm based in London", "Home is Toronto these days",
         "I relocated to Madrid", "I just moved here to Chicago", "I'm living in Paris now"),
    ),
    RegistryEntry(
        "user.hometown", "where the user comes from or grew up", "one", ("user.origin",),
        ("I'm from Ohio", "I grew up in Lyon", "I was born in Mumbai", "My hometown is Austin"),
    ),
    RegistryEntry(
        "user.diet", "the user's diet: vegetarian, vegan, pescatarian, omnivore", "one", ("user.dietary",),
        ("I'm vegetarian", "I went vegan last year", "I don't eat meat", "I'm not vegetarian anymore",
         "I eat meat every day now", "I follow a keto diet", "I keep kosher"),
    ),
    RegistryEntry(
        "user.food_preferences", "foods and cuisines the user likes or dislikes", "many",
        ("user.food", "user.cuisine", "user.food_likes"),
        ("I love Italian food", "I hate cilantro", "Sushi is my favorite", "I can't stand spicy food",
         "I'm a big fan of Thai curry", "I don't like mushrooms anymore"),
    ),
    RegistryEntry(
        "user.likes", "things the user likes or dislikes (not food)", "many", ("user.interests", "user.hobbies"),
        ("I love jazz", "I enjoy hiking", "I hate horror movies", "I'm really into chess", "I can't stand reality TV"),
    ),
    RegistryEntry(
        "user.allergies", "things the user is allergic to", "many", ("user.allergy",),
        ("I'm allergic to peanuts", "I have a shellfish allergy", "Penicillin gives me a reaction",
         "I'm no longer allergic to cats"),
    ),
    RegistryEntry(
        "user.language", "languages the user speaks", "many", ("user.languages",),
        ("I speak French", "I'm fluent in German", "My native language is Spanish", "Portuguese is my first language"),
    ),
    RegistryEntry("user.name", "the user's name", "one", ("user.full_name",),
                  ("My name is Ana", "Call me Sam", "I'm called Jo")),
    RegistryEntry(
        "user.job", "the user's job, role or occupation", "one", ("user.occupation", "user.role"),
        ("I'm a software engineer", "I work as a nurse", "My job is teaching", "I was promoted to senior manager",
         "I'm no longer a teacher"),
    ),
    RegistryEntry(
        "user.employer", "the company the user works for", "one", ("user.company",),
        ("I work at Acme", "I just joined Microsoft", "I started at Google last week", "I left Amazon",
         "My employer is Siemens", "I'm working for a startup called Nimbus"),
    ),
    RegistryEntry(
        "user.schedule.*", "recurring events in the user's schedule, e.g. gym, meetings", "one", (),
        ("I go to the gym at 7am", "My standup is at 9:30", "I have yoga every Tuesday", "Piano lessons are on Fridays"),
    ),
    RegistryEntry(
        "user.pets", "the user's pets", "many", ("user.pet",),
        ("I have a dog", "I've got two cats", "We adopted a puppy", "My parrot is called Kiwi",
         "I don't have a cat anymore"),
    ),
    RegistryEntry(
        "user.family", "the user's family members: spouse, children, siblings, parents", "many",
        ("user.children", "user.kids"),
        ("I have two kids", "My wife is Sarah", "I have a daughter", "I have three brothers"),
    ),
    RegistryEntry(
        "user.marital_status", "whether the user is single, married, divorced", "one", ("user.relationship_status",),
        ("I'm married", "I got divorced", "I'm single", "I just got engaged"),
    ),
    RegistryEntry("user.birthday", "the user's birthday", "one", ("user.birth_date",),
                  ("My birthday is on May 4", "I was born on 3 March 1990")),
    RegistryEntry(
        "user.payment.method", "how the user pays: card, PayPal, invoice", "one", ("user.payment_method",),
        ("I pay with my Visa card", "Charge it to my Amex", "My payment method is PayPal",
         "I switched to paying by bank transfer", "Use my Mastercard for purchases"),
    ),
    RegistryEntry(
        "user.budget", "how much the user can or wants to spend; a budget or spending limit", "one",
        ("user.spending_limit",),
        ("My budget is $5000", "I can spend up to 5,000 USD", "Keep it under two thousand euros",
         "My spending limit is $300", "I don't want to spend more than $800"),
    ),
    RegistryEntry(
        "user.consent.*", "what the user agreed to or withdrew consent for: marketing, data sharing", "one", (),
        ("I consent to marketing emails", "I withdraw my consent for data sharing",
         "Stop sending me promotional emails", "You may record my calls", "I opt out of the newsletter"),
    ),
    RegistryEntry(
        "user.contact_preference", "how the user wants to be contacted: email, phone, text", "one",
        ("user.contact_method", "user.contact_channel"),
        ("Contact me by email", "Please text me instead of calling", "Email is the best way to reach me",
         "I prefer phone calls", "Reach me on WhatsApp"),
    ),
    RegistryEntry(NOTES_ENTITY, "free-text notes about the user no rule could read (kept if the policy says so)",
                  "many", ()),
)
