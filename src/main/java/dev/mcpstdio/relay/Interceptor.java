package dev.mcpstdio.relay;

import java.util.List;

/**
 * One link of the relay's outbound chain. A link sees the call on the way out and the outcome on
 * the way back; it may change the call, answer it itself, or proceed more than once (retry,
 * replay, pages). The order of the links is the relay's policy.
 */
@FunctionalInterface
interface Interceptor {

  Outcome intercept(Chain chain) throws InterruptedException;

  /** The rest of the chain, from one link's point of view. */
  interface Chain {
    Call call();

    /** Passes {@code call} to the next link and returns what it came to. */
    Outcome proceed(Call call) throws InterruptedException;
  }

  /** Runs {@code links} in order, ending at {@code transport}. */
  static Outcome run(List<Interceptor> links, Transport transport, Call call)
      throws InterruptedException {
    return new Link(links, transport, 0, call).proceed(call);
  }

  /** The chain's last step: one attempt on the wire. */
  @FunctionalInterface
  interface Transport {
    Outcome send(Call call) throws InterruptedException;
  }

  /** A position in the chain. */
  record Link(List<Interceptor> links, Transport transport, int index, Call call) implements Chain {
    @Override
    public Outcome proceed(Call next) throws InterruptedException {
      if (index == links.size()) {
        return transport.send(next);
      }
      return links.get(index).intercept(new Link(links, transport, index + 1, next));
    }
  }
}
