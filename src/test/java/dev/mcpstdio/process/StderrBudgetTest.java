package dev.mcpstdio.process;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The token bucket behind a child's log budget, on a clock the test moves. */
class StderrBudgetTest {

  private static final long SECOND = 1_000_000_000L;
  private static final ChildProcess.StderrLimit LIMIT = new ChildProcess.StderrLimit(100); // bursts of 1600 bytes

  @Test
  void aBurstFitsThenLinesAreDroppedUntilTheBucketRefills() {
    StderrBudget budget = new StderrBudget(LIMIT, 0);

    assertThat(budget.take(1600, 1600, 0)).isTrue();
    assertThat(budget.take(1, 1, 0)).isFalse();
    assertThat(budget.take(100, 100, SECOND / 2)).as("half a second refills 50 bytes").isFalse();
    assertThat(budget.take(50, 50, SECOND / 2)).isTrue();
    assertThat(budget.take(1600, 1600, 100 * SECOND)).as("the bucket holds one burst at most").isTrue();
    assertThat(budget.take(1, 1, 100 * SECOND)).isFalse();
  }

  @Test
  void aReportSaysWhatWasDroppedSinceTheLastOneAndSinceWhen() {
    StderrBudget budget = new StderrBudget(LIMIT, 0);
    budget.take(1600, 1600, 0);
    assertThat(budget.dropping()).isFalse();
    budget.take(1000, 700, SECOND);
    budget.takeGatewayLine(400, 2 * SECOND); // 200 bytes there
    budget.take(10_000, 10_000, 2 * SECOND);

    assertThat(budget.dropping()).isTrue();
    assertThat(budget.report(11 * SECOND)).as("from the first drop on")
        .isEqualTo(new StderrBudget.Dropped(100, 2, 10_700, 1, 10_000));
    assertThat(budget.dropping()).isFalse();
    assertThat(budget.report(12 * SECOND)).as("nothing dropped since").isNull();

    budget.take(10_000, 10_000, 12 * SECOND);
    assertThat(budget.report(12 * SECOND + 5_000_000)).isEqualTo(new StderrBudget.Dropped(100, 1, 10_000, 0, 5));
  }

  @Test
  void chargedLinesUseTheBudgetButAreNeverRefused() {
    StderrBudget budget = new StderrBudget(LIMIT, 0);

    budget.charge(5000, 0);

    assertThat(budget.take(1, 1, 0)).isFalse();
    assertThat(budget.report(0)).isEqualTo(new StderrBudget.Dropped(100, 1, 1, 0, 0));
    assertThat(budget.take(100, 100, SECOND)).as("refilled from empty, not from below zero").isTrue();
  }
}
