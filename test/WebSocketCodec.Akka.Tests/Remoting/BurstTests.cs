using Akka.Actor;

namespace WebSocketCodec.Akka.Tests.Remoting;

/// <summary>
/// A burst far larger than the outbound high water mark: the transport refuses writes above the mark, Akka's endpoint
/// writer buffers and retries them, and every message arrives, in order.
/// </summary>
public sealed class BurstTests() : TwoNodeSpec("outbound-high-water-mark = 64 KiB\noutbound-low-water-mark = 32 KiB")
{
    private const int Count = 100_000;

    [Fact]
    public async Task One_hundred_thousand_messages_sent_in_a_burst_arrive_in_order()
    {
        Server.ActorOf(Props.Create(() => new SequenceCounter(Count)), "counter");
        IActorRef counter = await Sys.ActorSelection(new RootActorPath(ServerAddress) / "user" / "counter").ResolveOne(TimeSpan.FromSeconds(15));

        for (int i = 0; i < Count; i++)
        {
            counter.Tell(i, TestActor);
        }

        // "received/out of order": the counter answers once it has seen Count messages
        Assert.Equal($"{Count}/0", ExpectMsg<string>(TimeSpan.FromSeconds(30)));
    }

    /// <summary>Counts the integers it receives and those that did not follow the previous one; answers the sender of
    /// the last expected one with "count/out of order".</summary>
    private sealed class SequenceCounter : ReceiveActor
    {
        public SequenceCounter(int expected)
        {
            int received = 0;
            int outOfOrder = 0;
            int next = 0;
            Receive<int>(value =>
            {
                if (value != next)
                {
                    outOfOrder++;
                }

                next = value + 1;
                if (++received == expected)
                {
                    Sender.Tell($"{received}/{outOfOrder}");
                }
            });
        }
    }
}
