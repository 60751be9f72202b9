using System.Net.WebSockets;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Broadcast.Server;

/// <summary>
/// The server's side of <c>--stalled</c>: a websocket whose upgrade asks for <c>/?stalled</c> is a client that never
/// reads. Before it joins the group (or the loop's member list) the server fills its outbound path until the websocket
/// is no longer writable, so it is above its high water mark from the first broadcast on; the kernel's loopback
/// buffers alone would otherwise absorb megabytes of broadcasts before it behaved as stalled. Counts the stalled
/// websockets that are members now, and those whose filling never stopped being writable (within a bound).
/// </summary>
internal sealed class StalledMembers
{
    private const int MaxFills = 2_000; // 2,000 × 64 KiB: a websocket that takes this much is not stalled
    private static readonly byte[] Filler = new byte[64 * 1024];
    private int _members;
    private int _notFilled;

    /// <summary>Stalled websockets that are members now.</summary>
    public int Members => Volatile.Read(ref _members);

    /// <summary>Stalled websockets that stayed writable through <see cref="MaxFills"/> fillers (they joined anyway).</summary>
    public int NotFilled => Volatile.Read(ref _notFilled);

    /// <summary>Whether the request target (path and query) asks for a stalled websocket.</summary>
    public static bool IsStalled(string? target) => target is not null && target.Contains("?stalled", StringComparison.Ordinal);

    public void Joined() => Interlocked.Increment(ref _members);

    public void Left() => Interlocked.Decrement(ref _members);

    /// <summary>Our endpoint: non-waiting 64 KiB sends until the websocket stays not writable for 200 ms (it must be
    /// running, so its flushes complete and its water marks move). A websocket is not writable for a moment after every
    /// filler, while the transport takes it; only one that stays so is stalled.</summary>
    public async Task FillAsync(WebSocketConnection connection)
    {
        const int QuietSteps = 40; // × 5 ms
        int quiet = 0;
        for (int i = 0; i < MaxFills && quiet < QuietSteps; i++)
        {
            if (connection.IsWritable)
            {
                connection.Sender.TrySend(WebSocketOpcode.Binary, Filler);
                quiet = 0;
            }
            else
            {
                quiet++;
            }

            await Task.Delay(5); // pacing: the transport takes what it can between steps
        }

        if (connection.IsWritable)
        {
            Interlocked.Increment(ref _notFilled);
        }
    }

    /// <summary>ASP.NET Core's websocket (it has no writability to read): 64 KiB sends until one does not complete within
    /// 200 ms. That send stays pending, so the loop's next send to it waits behind it.</summary>
    public async Task FillAsync(WebSocket webSocket, CancellationToken cancellationToken)
    {
        for (int i = 0; i < MaxFills; i++)
        {
            Task send = webSocket.SendAsync(Filler.AsMemory(), WebSocketMessageType.Binary, endOfMessage: true, cancellationToken).AsTask();
            if (await Task.WhenAny(send, Task.Delay(200, cancellationToken)) != send)
            {
                _ = send.ContinueWith(static t => _ = t.Exception, TaskScheduler.Default); // observed when the client goes
                return;
            }

            await send;
        }

        Interlocked.Increment(ref _notFilled);
    }
}
