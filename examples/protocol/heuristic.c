/* A heuristic bot for arena in C, for both games: the JSON-lines protocol of docs/protocol.md.
 * Every request carries the whole observation, so it keeps nothing between decisions.
 * heuristic-c.toml builds it with the machine's cc. */
#include "json_lines.h"

#define MAX 512
static const char *start[MAX];
static int length[MAX];

static int is(const char *value, const char *text) { return value && !strncmp(value, text, strlen(text)); }

/* The cards of an array of cards (their positions at their opening quotes). */
static int cards(const char *array, const char **out, int max) {
    int len[16];
    return json_elements(array, out, len, max < 16 ? max : 16);
}

/* How Low Can You Go?: 2..K count their rank, black aces 1, red aces -5. */
static double value(const char *card) {
    if (card[1] == 'A') return (card_suit(card) == 'C' || card_suit(card) == 'S') ? 1 : -5;
    return card_rank(card) + 2;
}

static void how_low(const char *obs, int n) {
    const char *hand[8];
    int h = cards(json_value(obs, "hand"), hand, 8);
    double total = 0;
    for (int i = 0; i < h; i++) total += value(hand[i]);
    int best = -1, empty = -1;
    double best_gain = 0;
    for (int i = 0; i < n; i++) {
        if (start[i][0] == '"') {
            if (is(start[i], "\"redraw\"") && total > 45) { best = i; break; }
            continue;
        }
        const char *a[4];
        int k = cards(start[i], a, 4);
        if (k == 0) empty = i;
        double gain = 0;
        for (int j = 0; j < k; j++) gain += value(a[j]) - 352.0 / 52.0;
        if (best < 0 || gain > best_gain + 1e-9) { best = i; best_gain = gain; }
    }
    if (total <= 5 && empty >= 0 && !(best >= 0 && is(start[best], "\"redraw\""))) best = empty;
    if (best < 0) best = 0;
    printf("{\"type\":\"action\",\"action\":%.*s}\n", length[best], start[best]);
}

static int beats(const char *card, const char *best, char trump) {
    if (card_suit(card) == card_suit(best)) return card_rank(card) > card_rank(best);
    return card_suit(card) == trump;
}

static void answer_card(const char *card) { printf("{\"type\":\"action\",\"action\":%.4s}\n", card); }

static void twenty_down(const char *obs, int n) {
    const char *phase = json_value(obs, "phase");
    const char *t = json_value(obs, "trump");
    char trump = (t && t[0] == '"') ? t[1] : 0;
    const char *hand[8];
    int h = cards(json_value(obs, "hand"), hand, 8);
    if (is(phase, "\"trump\"")) {
        int best = 0;
        for (int i = 1; i < h; i++) if (card_rank(hand[i]) > card_rank(hand[best])) best = i;
        for (int i = 0; i < n; i++)
            if (start[i][1] == card_suit(hand[best])) {
                printf("{\"type\":\"action\",\"action\":%.*s}\n", length[i], start[i]);
                return;
            }
        printf("{\"type\":\"action\",\"action\":%.*s}\n", length[0], start[0]);
        return;
    }
    if (is(phase, "\"exchange\"")) { /* side cards below the queen, lowest first, up to three */
        const char *weak[8];
        int w = 0;
        for (int r = 0; r < 10; r++)
            for (int i = 0; i < h && w < 3; i++)
                if (card_suit(hand[i]) != trump && card_rank(hand[i]) == r) weak[w++] = hand[i];
        for (int i = 0; i < n; i++) {
            const char *a[4];
            int k = cards(start[i], a, 4), same = k == w;
            for (int j = 0; same && j < k; j++) {
                int found = 0;
                for (int m = 0; m < w; m++) found |= !strncmp(a[j], weak[m], 4);
                same = found;
            }
            if (same) { printf("{\"type\":\"action\",\"action\":%.*s}\n", length[i], start[i]); return; }
        }
        printf("{\"type\":\"action\",\"action\":%.*s}\n", length[0], start[0]);
        return;
    }
    if (is(phase, "\"stay-or-drop\"")) {
        int strong = 0;
        for (int i = 0; i < h; i++) strong |= card_suit(hand[i]) == trump || hand[i][1] == 'A';
        printf("{\"type\":\"action\",\"action\":\"%s\"}\n", strong ? "stay" : "drop");
        return;
    }
    /* play: legal actions are cards */
    const char *trick[8];
    int lengths[8];
    int played = json_elements(json_value(obs, "current_trick"), trick, lengths, 8);
    int pick = 0;
    if (played == 0) { /* lead: the highest trump while holding two, else the highest card */
        int trumps = 0, high_trump = -1;
        for (int i = 0; i < n; i++)
            if (card_suit(start[i]) == trump) {
                trumps++;
                if (high_trump < 0 || card_rank(start[i]) > card_rank(start[high_trump])) high_trump = i;
            }
        if (trumps >= 2) pick = high_trump;
        else for (int i = 1; i < n; i++) if (card_rank(start[i]) > card_rank(start[pick])) pick = i;
    } else { /* the cheapest card that wins the trick, else the cheapest card */
        const char *best = strchr(trick[0], '"');
        for (int j = 1; j < played; j++) {
            const char *card = strchr(trick[j], '"');
            if (beats(card, best, trump)) best = card;
        }
        int any_winner = 0;
        for (int i = 0; i < n; i++) any_winner |= beats(start[i], best, trump);
        int cost_pick = 1 << 30;
        for (int i = 0; i < n; i++) {
            if (any_winner && !beats(start[i], best, trump)) continue;
            int cost = (card_suit(start[i]) == trump) * 100 + card_rank(start[i]);
            if (cost < cost_pick) { cost_pick = cost; pick = i; }
        }
    }
    answer_card(start[pick]);
}

int main(void) {
    char *line = NULL;
    size_t size = 0;
    while (getline(&line, &size, stdin) > 0) {
        const char *type = json_value(line, "type");
        if (is(type, "\"hello\"")) {
            printf("{\"type\":\"hello\",\"protocol\":1,\"name\":\"heuristic-c\","
                   "\"games\":[\"twenty-down\",\"how-low-can-you-go\"]}\n");
        } else if (is(type, "\"act\"")) {
            int n = json_elements(json_value(line, "legal_actions"), start, length, MAX);
            if (is(json_value(line, "game"), "\"twenty-down\"")) twenty_down(line, n);
            else how_low(line, n);
        }
        fflush(stdout);
    }
    free(line);
    return 0;
}
