/* Just enough JSON for an arena bot in C (docs/protocol.md): find a key's value in a message,
 * split an array into its elements, read a card or a string. No library needed: arena writes
 * compact JSON with unique key names, one message per line. */
#ifndef JSON_LINES_H
#define JSON_LINES_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text of the value of "key" in the message (the first occurrence), or NULL. */
static inline const char *json_value(const char *message, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *found = strstr(message, pattern);
    return found ? found + strlen(pattern) : NULL;
}

/* The end of the JSON value starting at s (one past its last character). */
static inline const char *json_skip(const char *s) {
    int depth = 0, in_string = 0;
    for (; *s; s++) {
        if (in_string) {
            if (*s == '\\') s++;
            else if (*s == '"') { in_string = 0; if (depth == 0) return s + 1; }
        } else if (*s == '"') in_string = 1;
        else if (*s == '[' || *s == '{') depth++;
        else if (*s == ']' || *s == '}') { if (--depth <= 0) return s + 1; }
        else if (depth == 0 && (*s == ',' || *s == '\n')) return s;
    }
    return s;
}

/* Split the array at s: the start and length of each element, at most max; their count. */
static inline int json_elements(const char *s, const char **start, int *length, int max) {
    int n = 0;
    if (!s || *s != '[') return 0;
    s++;
    while (*s && *s != ']' && n < max) {
        const char *end = json_skip(s);
        start[n] = s;
        length[n] = (int)(end - s);
        n++;
        s = end;
        if (*s == ',') s++;
    }
    return n;
}

/* A number at s. */
static inline long json_int(const char *s) { return s ? strtol(s, NULL, 10) : 0; }

/* A card "QH" at s (pointing at its opening quote): rank 0 (2) .. 12 (A), and its suit letter. */
static inline int card_rank(const char *s) { return (int)(strchr("23456789TJQKA", s[1]) - "23456789TJQKA"); }
static inline char card_suit(const char *s) { return s[2]; }

#endif
