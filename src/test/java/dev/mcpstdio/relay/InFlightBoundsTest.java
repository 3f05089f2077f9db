package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InFlightBoundsTest {

  private static final long MIB = 1 << 20;

  @Test
  void theLaunchersHeapAdmitsWhatFitsInIt() {
    InFlightBounds bounds = InFlightBounds.forHeap(40 * MIB);
    assertThat(bounds.maxOpen()).isEqualTo(128);
    assertThat(bounds.messageBytes()).isEqualTo(MIB * 5 / 2);
    long worst = bounds.maxOpen() * InFlightBounds.EXCHANGE_BYTES + bounds.messageBytes() + 2 * 10 * MIB;
    assertThat(worst).isLessThan(28 * MIB); // the exchanges, the budget and one 10 MiB answer joined once
  }

  @Test
  void boundsFollowTheHeapWithinLimits() {
    assertThat(InFlightBounds.forHeap(4 * MIB).maxOpen()).isEqualTo(InFlightBounds.MIN_OPEN);
    assertThat(InFlightBounds.forHeap(4 * MIB).messageBytes()).isEqualTo(InFlightBounds.MIN_MESSAGE_BYTES);
    assertThat(InFlightBounds.forHeap(512 * MIB).maxOpen()).isEqualTo(InFlightBounds.MAX_OPEN);
    assertThat(InFlightBounds.forHeap(4096 * MIB).maxOpen()).isEqualTo(InFlightBounds.MAX_OPEN);
  }
}
