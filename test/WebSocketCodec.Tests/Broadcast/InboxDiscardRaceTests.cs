using WebSocketCodec.Testing;

namespace WebSocketCodec.Tests.Broadcast;

/// <summary>A websocket's end discards its queue from any thread (<see cref="BroadcastInbox.Abandon"/>) while its own
/// thread may be running the queue: each frame goes back exactly once. The full-suite run caught the crash this guards
/// against ("released more often than retained", thrown on the thread pool, which ends the process) in
/// <c>BroadcastTests.MembersComingGoingAndDyingWhileBroadcastsRunLeakNothing</c>.</summary>
public sealed class InboxDiscardRaceTests
{
    [Fact]
    public void AnEndThatDiscardsTheQueueBetweenARunsLookAndItsTakeReleasesEachFrameOnce()
    {
        var pool = new CountingPool();
        var member = new FakeMember();
        foreach (string text in new[] { "one", "two" })
        {
            using BroadcastFrame message = BroadcastFrame.CreateUnencoded(WebSocketOpcode.Text, System.Text.Encoding.UTF8.GetBytes(text), pool);
            Assert.True(member.Enqueue(message));
        }

        Assert.Equal(2, pool.Outstanding);
        member.BetweenLookAndTake = member.Abandon; // the end comes right after the run looked at "one"
        member.Run();

        Assert.Empty(member.Frames); // the websocket ended: nothing appended
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.BadReturns);
        Assert.False(member.HasQueued);
    }
}
