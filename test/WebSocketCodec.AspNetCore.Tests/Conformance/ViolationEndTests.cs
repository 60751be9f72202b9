using System.Diagnostics;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Conformance;

/// <summary>
/// After a violation the server ends at once (RFC 6455 §7.1.7: after failing the connection it must not process the
/// peer's data, a responding Close included): its one Close, then at once the end of its output (a TCP FIN, read as 0 on
/// the raw socket; END_STREAM over HTTP/2), then the peer's input discarded until the peer ends its side, and the
/// connection (or stream) closed then, far before the close timeout (60 s in these servers). Two violations found
/// inside a frame, where the bytes that follow were once read as the rest of the bad frame: invalid UTF-8 early in a long
/// text frame, and a 64-bit length with its top bit set; in both the peer answers our Close instead of sending the rest.
/// </summary>
/// <remarks>Server-agnostic (linked into the SpanNetty tests): one body, one subclass per host. The gaps are printed
/// (<c>violation-end</c> lines) and asserted only against generous bounds: the FIN within 100 ms of our Close, the
/// whole end within 10 s.</remarks>
public abstract class ViolationEndTests(ITestOutputHelper output)
{
    private static readonly TimeSpan FinBound = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan FullCloseBound = TimeSpan.FromSeconds(10);

    /// <summary>Opens a websocket to the echo of the server under test (close timeout 60 s).</summary>
    protected abstract Task<RawWebSocket> OpenAsync(bool tls);

    /// <summary>The next websocket end the server records (the cases of a class run one after another).</summary>
    protected abstract Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken);

    /// <summary>Waits until the server counts no open websocket (where it counts them).</summary>
    protected virtual Task WhenNoWebSocketIsOpenAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>A name for the printed gaps (host and protocol).</summary>
    protected abstract string Host { get; }

    /// <summary>Whether the peer's end of its side reaches the server as an end the server reports as an error (a
    /// client that can only reset its stream); the server then reports that, never a timeout.</summary>
    protected virtual bool PeerEndIsReset => false;

    public static TheoryData<string, bool> Shapes() => new()
    {
        { "utf8", false }, { "utf8", true }, { "length", false }, { "length", true },
    };

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task AfterAViolationTheServerEndsItsOutputAtOnceAndClosesWhenThePeerEnds(string shape, bool tls)
    {
        (byte[] violation, int status) = shape switch
        {
            // A text frame announcing 60,000 bytes whose 3rd byte can start no UTF-8 sequence (0xC0): the server fails
            // the connection 8 + 16 bytes in, long before the frame's end.
            "utf8" => (WireFrames.Client(WebSocketOpcode.Text, [0x61, 0x62, 0xC0, 0xAF, .. new byte[59_996]]).AsSpan(0, 8 + 16).ToArray(), 1007),
            // FIN=1, Binary, MASK=1, length 127: a 64-bit length with its most significant bit set, then the mask key.
            _ => ([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4], 1002),
        };
        using var bound = new CancellationTokenSource(FullCloseBound + TimeSpan.FromSeconds(5));
        await using RawWebSocket socket = await OpenAsync(tls);
        Task<ServerEnd> serverEnd = NextServerEndAsync(bound.Token);
        Task<long> serverEnded = serverEnd.ContinueWith(
            static _ => Stopwatch.GetTimestamp(), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        await socket.SendAsync(violation);

        var close = await socket.ReadFrameAsync();
        long closeAt = socket.LastReadAt;
        Assert.True(close is not null, "the stream ended without the server's Close");
        Assert.Equal(WebSocketOpcode.Close, close.Value.Opcode); // nothing came before it
        Assert.Equal(status, WireFrames.CloseStatusOf(close.Value.Payload));

        // The peer answers our Close instead of sending the rest of its frame; the server must not wait for it.
        await SendIgnoringEndAsync(socket, WireFrames.ClientClose(1000));
        var after = await socket.ReadFrameAsync();
        long finAt = socket.LastReadAt;
        Assert.True(after is null, $"a {after?.Opcode} frame came after the server's Close"); // exactly one Close, then the end
        TimeSpan fin = Stopwatch.GetElapsedTime(closeAt, finAt);

        await socket.EndOutputAsync(); // fails if the server closed (or reset) before: it must wait for this
        long peerEndedAt = Stopwatch.GetTimestamp();
        long serverEndedAt = await serverEnded.WaitAsync(bound.Token);
        TimeSpan full = Stopwatch.GetElapsedTime(closeAt, serverEndedAt);
        output.WriteLine(
            $"violation-end {Host} {(tls ? "TLS" : "plain")} {shape}: FIN/END_STREAM {fin.TotalMilliseconds:F1} ms after our Close; "
            + $"fully closed {full.TotalMilliseconds:F1} ms after it ({Stopwatch.GetElapsedTime(peerEndedAt, serverEndedAt).TotalMilliseconds:F1} ms after the peer ended its side)");

        Assert.True(fin < FinBound, $"the server's output ended {fin.TotalMilliseconds:F1} ms after its Close");
        Assert.True(full < FullCloseBound, $"the server closed {full.TotalSeconds:F1} s after its Close (close timeout 60 s)");
        ServerEnd end = await serverEnd;
        Assert.Equal(status, end.SentStatus);
        Assert.Null(end.ReceivedStatus); // the peer's Close after the violation was not processed
        Assert.False(end.TimedOut, "the server ended the websocket by a timeout");
        Assert.True(PeerEndIsReset || end.Error is null, $"the server's websocket failed: {end.Error}");
        await WhenNoWebSocketIsOpenAsync(bound.Token);
    }

    /// <summary>Sends; a server that ended its side already (a reset of a stream it ended) is not an error here.</summary>
    private static async Task SendIgnoringEndAsync(RawWebSocket socket, byte[] bytes)
    {
        try
        {
            await socket.SendAsync(bytes);
        }
        catch (IOException)
        {
        }
    }
}
