package dev.jiyi.bench.quality;

import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;

/**
 * English multi-session chats ({@code --datasets sessions-en}): each user has weeks of sessions with
 * an assistant about everyday tasks (recipes, travel, code, money, fitness), every turn kept as an
 * event and nothing derived from them, as a host that stores the conversation and nothing else would.
 * A few of the user's turns mention something personal in passing ("by the way, we just adopted a
 * beagle named Biscuit"), inside a session about something else; the questions ask for those facts
 * weeks later, in words of their own. The assistant's long answers in other sessions use the same
 * everyday words (dog food, flights, apartments), and one fact changes (a move, a new job): the later
 * turn is the answer. This is the shape of a held-out set jiyi fell on (issue 30); the data is
 * generated from a fixed seed, not taken from it.
 */
final class MultiSession {

    static final String NAME = "sessions-en";
    static final int USERS = 6;
    private static final long SEED = 20_261_206L;

    /** An everyday task: what the user asks and sentences the assistant answers with. */
    private record Topic(String[] asks, String[] answers) {
    }

    private static final Topic[] TOPICS = {
        new Topic(new String[] {"Can you suggest a quick dinner recipe with chicken and rice?",
            "What can I cook tonight that takes less than thirty minutes?", "How do I make a good vegetable curry?"},
            new String[] {"A one-pan chicken and rice dish is a great weeknight option.",
                "Start by browning the chicken, then add the rice, broth and spices and simmer for twenty minutes.",
                "If you want more flavor, toast the spices in oil before adding the vegetables.",
                "Leftovers keep well in the fridge for three days, so it is a good meal prep choice.",
                "You can swap chicken for chickpeas or tofu if you want a vegetarian version."}),
        new Topic(new String[] {"I'm planning a weekend trip, any tips for packing light?",
            "What should I check before booking a cheap flight?", "How early should I get to the airport for an international flight?"},
            new String[] {"For a short trip, a carry-on and a small backpack are usually enough.",
                "Check the baggage allowance, the layover times and whether seat selection costs extra.",
                "Arriving three hours early for international flights leaves time for security and check-in.",
                "Roll your clothes instead of folding them, and pack versatile layers.",
                "Travel insurance is worth it if your plans might change."}),
        new Topic(new String[] {"My Python script is slow when reading a big CSV file, what can I do?",
            "How do I write a unit test for a function that calls an API?", "What's the difference between a list and a tuple?"},
            new String[] {"Reading the file in chunks with pandas keeps memory use low.",
                "Mock the API client so the test does not depend on the network.",
                "Profile the script first to see where the time actually goes.",
                "Tuples are immutable, which makes them usable as dictionary keys.",
                "Vectorized operations are usually much faster than looping over rows."}),
        new Topic(new String[] {"How much of my salary should I put into savings each month?",
            "Is it better to pay off my credit card or build an emergency fund first?", "How do index funds work?"},
            new String[] {"A common rule of thumb is to save about twenty percent of your income.",
                "Paying off high-interest debt usually comes first, with a small emergency fund alongside.",
                "Index funds track a market index, so their fees are low and they are broadly diversified.",
                "Automating a transfer on payday makes saving a habit rather than a decision.",
                "Review your budget every few months as your expenses change."}),
        new Topic(new String[] {"Can you give me a beginner workout plan for three days a week?",
            "How do I start running without hurting my knees?", "What should I eat before a morning workout?"},
            new String[] {"A full-body routine three days a week is a solid start for beginners.",
                "Increase your running distance by no more than ten percent a week.",
                "Good shoes and a softer surface can reduce the strain on your knees.",
                "A banana or a slice of toast about an hour before training gives you energy.",
                "Rest days matter as much as training days for recovery."}),
        new Topic(new String[] {"How do I keep my houseplants alive while I'm away for a week?",
            "My apartment gets very little light, which plants would survive?", "How often should I water a snake plant?"},
            new String[] {"Self-watering globes or a wick system keep plants watered for about a week.",
                "Pothos, snake plants and ZZ plants tolerate low light well.",
                "Water a snake plant only when the soil is completely dry, about every two to three weeks.",
                "Grouping plants together raises the humidity around them.",
                "Move plants away from cold windows in winter."}),
        new Topic(new String[] {"What should I feed a dog that has a sensitive stomach?",
            "How do I stop a dog from pulling on the leash?", "How often should a cat go to the vet?"},
            new String[] {"Many dogs with sensitive stomachs do well on a limited-ingredient food.",
                "Stop walking whenever the leash gets tight and reward the dog when it comes back to your side.",
                "Adult cats usually need a checkup once a year, older cats twice.",
                "Change a pet's food gradually over a week to avoid an upset stomach.",
                "Short, frequent training sessions work better than long ones."}),
        new Topic(new String[] {"Can you help me write a polite email asking for a deadline extension?",
            "How do I prepare for a job interview at a startup?", "What's a good way to ask my manager for a raise?"},
            new String[] {"Keep the email short, explain the reason briefly and propose a new date.",
                "Research the company's product and prepare examples of projects you owned.",
                "Bring evidence of your impact and a number you have researched.",
                "Ask thoughtful questions about the team and how success is measured.",
                "Follow up with a thank-you note within a day."}),
    };

    /** A personal fact said in passing, and a question about it in other words. */
    private record Fact(String said, String question) {
    }

    private static final Fact[][] FACTS = {
        {new Fact("By the way, we just adopted a beagle named Biscuit, so I'm a bit distracted.", "What's the name of our new dog?"),
            new Fact("Oh, and my sister Hannah is getting married in Lisbon this October.", "Where is my sister's wedding taking place?"),
            new Fact("I finally finished my master's degree in marine biology last week!", "What did I study for my master's?"),
            new Fact("Side note: I've started learning the cello, my lessons are on Wednesday evenings.", "Which instrument am I learning?"),
            new Fact("My favorite coffee shop, Little Owl Roasters, closed down, which is sad.", "What was the coffee shop I liked that closed?")},
        {new Fact("Just so you know, I'm allergic to shellfish, so no shrimp please.", "What food allergy do I have?"),
            new Fact("My daughter Mia just started kindergarten at Oak Hill Elementary.", "Which school does my daughter go to?"),
            new Fact("I bought a used Subaru Outback last month, it's been great in the snow.", "What car did I buy recently?"),
            new Fact("We're renovating the kitchen, the contractor is a guy called Marco.", "Who is doing our kitchen renovation?"),
            new Fact("I ran my first half marathon in Chicago in 2 hours and 5 minutes.", "What was my time in the half marathon?")},
    };

    /** A fact that changes: what the user said first, what they said later, and the question. */
    private static final String[][] CHANGES = {
        {"I live in Denver now and commute by bike most days.", "Update: we moved from Denver to Austin last month, still unpacking.",
            "Which city do I live in now?"},
        {"I'm working as a nurse at St. Mary's hospital on night shifts.", "Big change: I left the hospital and started a new job as a pharmacist at a clinic.",
            "What is my current job?"},
    };

    private final Random random = new Random(SEED);
    private final List<Scenario.EventSpec> events = new ArrayList<>();
    private final List<Scenario.Question> questions = new ArrayList<>();
    private Instant last = Instant.EPOCH;

    private MultiSession() {
    }

    static Scenario build() {
        MultiSession s = new MultiSession();
        for (int u = 0; u < USERS; u++) {
            s.user(u);
        }
        return new Scenario(NAME, List.copyOf(s.events), List.of(), List.copyOf(s.questions), s.last.plus(Duration.ofDays(1)), 0);
    }

    private void user(int number) {
        Scope scope = new Scope("sessions-user-" + number, "sessions-en");
        Fact[] facts = FACTS[number % FACTS.length];
        String[] change = CHANGES[number % CHANGES.length];
        int sessions = 24;
        // Sessions that carry a fact: spread over the weeks, never the first or the last.
        List<Integer> carriers = new ArrayList<>();
        while (carriers.size() < facts.length + 2) {
            int s = 1 + random.nextInt(sessions - 2);
            if (!carriers.contains(s)) {
                carriers.add(s);
            }
        }
        int early = Math.min(carriers.get(facts.length), carriers.get(facts.length + 1));
        int late = Math.max(carriers.get(facts.length), carriers.get(facts.length + 1));
        LocalDateTime day = LocalDateTime.of(2024, 2, 1, 19, 0).plusHours(number);
        String[] said = new String[facts.length];
        String second = null;
        for (int s = 0; s < sessions; s++) {
            Topic topic = TOPICS[random.nextInt(TOPICS.length)];
            String sessionId = scope.personaId() + "-s" + s;
            LocalDateTime at = day.plusDays(3L * s);
            int exchanges = 2 + random.nextInt(3);
            int factAt = random.nextInt(exchanges);
            for (int x = 0; x < exchanges; x++) {
                String ask = topic.asks()[random.nextInt(topic.asks().length)];
                String id = sessionId + "-t" + (2 * x);
                int f = carriers.indexOf(s);
                if (x == factAt && f >= 0 && f < facts.length) {
                    ask = facts[f].said() + " " + ask;
                    said[f] = id;
                } else if (x == factAt && s == early) {
                    ask = change[0] + " " + ask;
                } else if (x == factAt && s == late) {
                    ask = change[1] + " " + ask;
                    second = id;
                }
                at = turn(scope, id, Role.USER, ask, sessionId, at);
                at = turn(scope, sessionId + "-t" + (2 * x + 1), Role.ASSISTANT, answer(topic), sessionId, at);
            }
        }
        for (int f = 0; f < facts.length; f++) {
            ask(scope, "fact", facts[f].question(), said[f]);
        }
        ask(scope, "update", change[2], second);
    }

    private String answer(Topic topic) {
        List<String> sentences = new ArrayList<>(List.of(topic.answers()));
        StringBuilder out = new StringBuilder();
        int n = 3 + random.nextInt(2);
        for (int i = 0; i < n && !sentences.isEmpty(); i++) {
            out.append(i == 0 ? "" : " ").append(sentences.remove(random.nextInt(sentences.size())));
        }
        return out.toString();
    }

    private LocalDateTime turn(Scope scope, String id, Role role, String text, String session, LocalDateTime at) {
        LocalDateTime next = at.plusSeconds(20 + random.nextInt(90));
        Instant when = next.toInstant(ZoneOffset.UTC);
        last = when.isAfter(last) ? when : last;
        events.add(new Scenario.EventSpec(id, scope, role, text, session, when));
        return next;
    }

    private void ask(Scope scope, String category, String query, String gold) {
        questions.add(new Scenario.Question(NAME + "-" + (questions.size() + 1), scope, query,
                new LinkedHashSet<>(List.of(gold)), category));
    }
}
