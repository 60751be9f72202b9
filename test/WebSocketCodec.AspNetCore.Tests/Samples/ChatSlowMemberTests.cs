using System.Net.Sockets;
using WebSocketCodec.Samples.Chat;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>A member that stops reading (a raw socket that never reads after the 101) while the others keep chatting:
/// they get every message in order, and the room closes the silent one (1008) once its peer has taken nothing for the
/// slow-consumer timeout (2 s here), instead of waiting for it or dropping messages for the others.</summary>
public sealed class ChatSlowMemberTests(ITestOutputHelper output)
{
    private const int Batch = 8; // 8 KiB: the readers are never more than this behind, far below the 64 KiB high water mark
    private const int MaxMessages = 2_000_000; // a bound on the loop, far above what the buffers on the way can hold
    private static readonly TimeSpan MaxTime = TimeSpan.FromSeconds(60); // and on its time: the close takes about 7 s

    [Fact]
    public async Task TheOthersGetEveryMessageInOrderAndTheNonReaderIsClosed()
    {
        await using ChatServerHost server = await ChatServerHost.StartAsync(new ChatOptions { Port = 0, SlowConsumerTimeout = TimeSpan.FromSeconds(2) });
        using var http2 = new HttpMessageInvoker(Http2Requests.Handler());
        await using ChatClient talker = await ChatClient.JoinAsync(server, "lobby");
        await using ChatClient listener = await ChatClient.JoinAsync(server, "lobby", http2);
        using Socket silent = await SilentChatMember.JoinAsync(server, "lobby");
        await Eventually.True(() => server.Rooms.Find("lobby")?.MemberCount == 3);
        ChatRoom room = server.Rooms.Find("lobby")!;

        // The talker sends in batches and waits until both readers have the batch (so neither falls behind by more than
        // one), until the room has closed the silent member; then one more batch, which only the two readers get.
        string padding = new('x', 1000);
        var sent = new List<string>();
        var talkerGot = new List<string>();
        var listenerGot = new List<string>();
        bool lastBatch = false;
        long started = System.Diagnostics.Stopwatch.GetTimestamp();
        TimeSpan closedAfter = TimeSpan.Zero;
        while (sent.Count < MaxMessages && System.Diagnostics.Stopwatch.GetElapsedTime(started) < MaxTime)
        {
            for (int i = 0; i < Batch; i++)
            {
                string text = $"{sent.Count} {padding}";
                sent.Add(text);
                await talker.SendAsync(text);
            }

            talkerGot.AddRange(await talker.ReceiveAsync(Batch));
            listenerGot.AddRange(await listener.ReceiveAsync(Batch));
            if (lastBatch)
            {
                break;
            }

            lastBatch = room.SlowMembersClosed > 0;
            closedAfter = System.Diagnostics.Stopwatch.GetElapsedTime(started);
        }

        // The silent member's end: the slow-consumer timeout (2 s) after its peer stopped taking bytes, then the close
        // timeout (5 s) for a Close it cannot read either.
        output.WriteLine($"{sent.Count} texts of about 1 KB; the silent member's websocket ended within the last two batches, {closedAfter.TotalSeconds:F1} s after the first");
        Assert.Equal(1, room.SlowMembersClosed); // the silent one: both readers are still in and got everything
        Assert.False(talker.Closed.IsCompleted);
        Assert.False(listener.Closed.IsCompleted);
        Assert.Equal(2, room.MemberCount);
        Assert.Equal(sent, talkerGot);
        Assert.Equal(sent, listenerGot);
        await talker.SendAsync("after");
        Assert.Equal(["after"], await listener.ReceiveAsync(1));
    }
}
