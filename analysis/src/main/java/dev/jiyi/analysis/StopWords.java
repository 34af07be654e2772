package dev.jiyi.analysis;

import java.util.Set;

/**
 * Words too common to be evidence (R6): function words of English and Chinese, and the question
 * words that every question carries. They stay in the index (tokens are complete) but are dropped
 * from queries, so a query that shares only these with a memory does not find it.
 */
public final class StopWords {

    private static final Set<String> ENGLISH = Set.of(
            "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at",
            "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
            "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has",
            "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if",
            "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor",
            "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out",
            "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their",
            "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to",
            "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while",
            "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves",
            "s", "t", "d", "ll", "m", "re", "ve", "don", "didn", "doesn", "isn", "wasn", "weren", "won",
            "also", "yes", "oh", "ok", "okay", "yeah", "hey", "hi", "hello", "really", "thing", "things",
            "get", "got", "let", "lot", "much", "many", "may", "might", "must", "shall", "us");

    private static final Set<String> CHINESE = Set.of(
            "的", "了", "着", "过", "地", "得", "之", "所", "而", "及", "与", "和", "跟", "同", "或", "且", "并",
            "我", "你", "您", "他", "她", "它", "们", "我们", "你们", "他们", "她们", "它们", "咱们", "自己",
            "是", "在", "有", "也", "就", "都", "还", "又", "才", "很", "太", "更", "最", "吗", "呢", "吧", "啊",
            "呀", "哦", "嗯", "哈", "啦", "嘛", "么", "这", "那", "这个", "那个", "这些", "那些", "这样", "那样",
            "什么", "怎么", "怎样", "为什么", "哪", "哪里", "哪儿", "哪个", "哪些", "这里", "那里", "这么", "那么",
            "谁", "多少", "几", "个", "一", "一个", "一些",
            "把", "被", "让", "给", "对", "从", "向", "往", "到", "于", "以", "为", "因为", "所以", "但是", "但",
            "如果", "就是", "还是", "可以", "没有", "不是", "会", "要", "能", "说", "去", "来", "上", "下", "里");

    private StopWords() {
    }

    /** True when {@code term} (a normalized token) is a stop word. */
    public static boolean contains(String term) {
        return ENGLISH.contains(term) || CHINESE.contains(term);
    }
}
