package dev.jiyi.lucene;

/**
 * L1: the contract with Lucene's SmartChineseAnalyzer instead of jiyi's analysis, for comparison.
 * The checks that rely on jiyi's token stream itself (CJK unigrams inside longer words, its stemmer)
 * do not apply and are skipped; every filter, order, deletion and vector check runs.
 */
class SmartcnRecallIndexTest extends LuceneRecallIndexTest {

    @Override
    protected Analysis analysis() {
        return Analysis.SMARTCN;
    }

    @Override
    protected boolean sameTokensAsFts5() {
        return false;
    }
}
