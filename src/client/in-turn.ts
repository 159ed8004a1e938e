/**
 * `next` calls taken one at a time, as an async generator takes them: a
 * `next` asked before the last one's answer came waits for it. The stream
 * iterators the client hands out are written by hand (a generator costs
 * more per event) and need this: reads at once would each take the
 * stream's end, or its next batch of events, as their own, losing events
 * or resuming a stream twice. A reader that waits for each answer, as
 * `for await` does, never waits here.
 */
export class InTurn<T> {
  /** A read is under way whose answer has not come. */
  private reading = false;
  /** Reads asked for meanwhile, waiting their turn. */
  private queued = 0;
  /** The answer to the read asked for last. */
  private last: Promise<IteratorResult<T>> | undefined;

  constructor(private readonly read: () => Promise<IteratorResult<T>>) {}

  next(): Promise<IteratorResult<T>> {
    if (this.reading || this.queued > 0) {
      this.queued++;
      return (this.last = this.last!.then(this.inTurn, this.inTurn));
    }
    this.reading = true;
    return (this.last = this.read());
  }

  /**
   * The read under way has its answer (an event, the end, an error): the
   * next need not wait. The owner says so as soon as it knows; a read it
   * never says it of makes every later one wait for the one before.
   */
  answered(): void {
    this.reading = false;
  }

  private readonly inTurn = (): Promise<IteratorResult<T>> => {
    this.queued--;
    this.reading = true;
    return this.read();
  };
}
