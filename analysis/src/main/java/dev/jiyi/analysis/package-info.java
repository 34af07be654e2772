/**
 * The Chinese-aware token stream shared by every jiyi index.
 *
 * <p>{@link dev.jiyi.analysis.ChineseTokens} runs jieba in index mode and adds each CJK character
 * on its own. For example {@code 我在北京大学读书} becomes
 * {@code 我 在 北京 北 京 大学 北京大学 大 学 读书 读 书}: the whole word {@code 北京大学}, its
 * sub-words {@code 北京} and {@code 大学}, and the characters, so a one-character query such as
 * {@code 书} still finds {@code 本书}. English is lower-cased and NFKC-normalized
 * ({@code ＡＩ} and {@code ai} are the same token).
 */
package dev.jiyi.analysis;
