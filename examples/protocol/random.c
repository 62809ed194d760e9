/* A random bot for arena in C: the JSON-lines protocol of docs/protocol.md. random-c.toml
 * builds it with the machine's cc; copy both files and json_lines.h into bots/. */
#include "json_lines.h"

#define GAMES 65536 /* one generator per game in play (a program may play several at once) */
static unsigned long long state[GAMES];

static unsigned long long next(unsigned long long *s) { /* splitmix64 */
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int main(void) {
    char *line = NULL;
    size_t size = 0;
    const char *start[512];
    int length[512];
    while (getline(&line, &size, stdin) > 0) {
        const char *type = json_value(line, "type");
        if (!type) continue;
        long id = json_int(json_value(line, "id")) % GAMES;
        if (!strncmp(type, "\"hello\"", 7)) {
            /* the compact form (docs/protocol.md): no observation field, the legal actions'
             * count in each request, answered by an index */
            printf("{\"type\":\"hello\",\"protocol\":1,\"name\":\"random-c\","
                   "\"games\":[\"twenty-down\",\"how-low-can-you-go\"],\"fields\":[]}\n");
        } else if (!strncmp(type, "\"start\"", 7)) {
            const char *seed = json_value(line, "seed");
            state[id] = seed ? strtoull(seed + 1, NULL, 16) : 1; /* its first 16 hex digits */
        } else if (!strncmp(type, "\"act\"", 5) && json_value(line, "count")) {
            long n = json_int(json_value(line, "count"));
            long pick = n ? (long)(next(&state[id]) % (unsigned long long)n) : 0;
            printf("{\"type\":\"action\",\"request\":%ld,\"index\":%ld}\n",
                   json_int(json_value(line, "request")), pick);
        } else if (!strncmp(type, "\"act\"", 5)) { /* (an arena without the compact form) */
            int n = json_elements(json_value(line, "legal_actions"), start, length, 512);
            int pick = n ? (int)(next(&state[id]) % (unsigned long long)n) : 0;
            /* the answer names its request (arena then tells a surplus line from it) */
            long request = json_int(json_value(line, "request"));
            printf("{\"type\":\"action\",\"request\":%ld,\"action\":%.*s}\n", request,
                   n ? length[pick] : 4, n ? start[pick] : "null");
        }
        fflush(stdout);
    }
    free(line);
    return 0;
}
