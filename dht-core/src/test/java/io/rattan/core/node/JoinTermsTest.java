package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.msg.MembershipMessages.ClusterTerms;
import org.junit.jupiter.api.Test;

/** The refusal's wording: the joiner's flags to change, the cluster's value first. */
class JoinTermsTest {

    @Test
    void theDifferencesNameTheFlagsToChange() {
        ClusterTerms terms = new ClusterTerms(4, 2, 1024, 604_800);
        assertThat(Join.differences(terms, new ClusterTerms(3, 2, 1024, 3600)))
                .isEqualTo("--replicas 4 (this node: 3), --ttl-seconds-max 604800 (this node: 3600)");
        assertThat(Join.differences(terms, terms)).isEmpty();
    }
}
