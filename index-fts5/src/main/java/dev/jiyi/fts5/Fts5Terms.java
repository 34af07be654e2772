package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Scope;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The terms the FTS5 tables hold and the MATCH expressions that search them: the shared analysis
 * terms (R1), the scope token that keeps each scope's rows apart (S1), and queries searched
 * literally (R2) without stop words (R6) or scope-token look-alikes.
 */
final class Fts5Terms {

    /** The start of every scope token; no term of user text that starts so is stored or searched. */
    static final String SCOPE_PREFIX = "jiyiscope";

    private Fts5Terms() {
    }

    /**
     * The terms FTS5 stores for a text: the analysis terms, split again where the 'ascii' tokenizer
     * splits ({@link ChineseTokens#storedPieces}).
     */
    static Set<String> indexedTerms(String text) {
        Set<String> out = new HashSet<>();
        for (String term : ChineseTokens.terms(text)) {
            for (String piece : ChineseTokens.storedPieces(term)) {
                if (!piece.startsWith(SCOPE_PREFIX)) {
                    out.add(piece);
                }
            }
        }
        return out;
    }

    /**
     * The text's tokens, space-separated, without any that look like a scope token: user text
     * cannot put a row into another scope's filter (nor can a query name one, see literalQuery).
     */
    static String contentTokens(String text) {
        StringBuilder sb = new StringBuilder();
        for (String term : ChineseTokens.terms(text)) {
            if (!term.startsWith(SCOPE_PREFIX)) {
                if (!sb.isEmpty()) {
                    sb.append(' ');
                }
                sb.append(term);
            }
        }
        return sb.toString();
    }

    /** The scope's rows (by the scope token in their scope column) that have any of the terms in their text. */
    static String match(Scope scope, String terms) {
        return "scope : \"" + scopeToken(scope) + "\" AND tokens : (" + terms + ")";
    }

    /**
     * The token that puts a row in its scope: FTS5 filters by it, so a query never ranks another
     * scope's rows and the limit applies within the scope. Letters and digits only, so the tokenizer
     * keeps it whole; a hash, so scope IDs of any length and script fit.
     */
    static String scopeToken(Scope scope) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((scope.personaId() + "\u0000" + scope.projectId()).getBytes(StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder(SCOPE_PREFIX);
            for (int i = 0; i < 10; i++) {
                sb.append(Character.forDigit((digest[i] >> 4) & 0xF, 16)).append(Character.forDigit(digest[i] & 0xF, 16));
            }
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }

    /**
     * An FTS5 MATCH expression that searches the query's terms literally (R2): each distinct term
     * that is not a stop word (R6) becomes a double-quoted string (inner quotes doubled), joined with
     * OR, so operators, column filters, prefixes and parentheses in the query are text, never
     * syntax. Returns null when the query has no searchable term.
     */
    static String literalQuery(String query) {
        List<String> terms = searchTerms(query);
        return terms.isEmpty() ? null : literal(terms);
    }

    /** The query's distinct terms that are searched: not stop words (R6), not scope-token look-alikes. */
    static List<String> searchTerms(String query) {
        List<String> out = new ArrayList<>();
        for (String term : ChineseTokens.queryTerms(query)) {
            if (!term.startsWith(SCOPE_PREFIX)) {
                out.add(term);
            }
        }
        return out;
    }

    /** The terms as double-quoted FTS5 strings (inner quotes doubled), OR'ed. */
    static String literal(List<String> terms) {
        List<String> quoted = new ArrayList<>(terms.size());
        for (String term : terms) {
            quoted.add('"' + term.replace("\"", "\"\"") + '"');
        }
        return String.join(" OR ", quoted);
    }
}
