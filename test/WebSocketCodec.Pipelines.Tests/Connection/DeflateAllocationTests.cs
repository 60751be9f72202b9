using System.IO.Compression;
using System.Text;

namespace WebSocketCodec.Pipelines.Tests.Connection;

/// <summary>
/// permessage-deflate allocates nothing per message in steady state, both directions: the client's compressed messages
/// are inflated and the echo compressed (context takeover both ways, the server's default) with no allocation between
/// one message's callback and the next one of the same read, on the read loop's thread.
/// </summary>
[Collection(nameof(SerialCollection))]
public sealed class DeflateAllocationTests(Xunit.Abstractions.ITestOutputHelper output)
{
    private sealed class MeasuringEcho(WebSocketFrameSender sender) : IWebSocketFrameListener
    {
        private const int WarmUpFrames = 2_000;
        private long _last = -1;

        public int Frames;
        public long Pairs;
        public long Allocated;
        public int Rsv;

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            long now = GC.GetAllocatedBytesForCurrentThread();
            if (_last >= 0 && Frames >= WarmUpFrames)
            {
                Allocated += now - _last;
                Pairs++;
            }

            Frames++;
            Rsv |= rsv;
            sender.Send(opcode, payload, fin); // compressed: a whole message above the threshold
            _last = now;
        }

        public ValueTask OnReadCompleteAsync(CancellationToken cancellationToken)
        {
            _last = -1;
            return default;
        }
    }

    [Theory]
    [InlineData(64, true)]
    [InlineData(1024, true)]
    [InlineData(16 * 1024, true)]
    [InlineData(1024, false)] // no context takeover: a fresh zlib stream per message is the documented cost
    public async Task EchoingCompressedMessagesAllocatesNothingPerMessage(int length, bool contextTakeover)
    {
        var loop = new Loopback(pauseWriterThreshold: 256 * 1024, pool: new BlockPool(preallocate: 1024));
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, new WebSocketSessionOptions { Pool = System.Buffers.ArrayPool<byte>.Create() });
        var parameters = DeflateParameters.Default with { ServerNoContextTakeover = !contextTakeover, ClientNoContextTakeover = !contextTakeover };
        channel.EnablePerMessageDeflate(parameters, new PerMessageDeflateOptions { OwnContextTakeover = contextTakeover, PeerContextTakeover = contextTakeover });
        MeasuringEcho? echo = null;
        Task<WebSocketCloseInfo> run = channel.RunAsync(sender => echo = new MeasuringEcho(sender), Loopback.Timeout(60));
        byte[] json = Json(length);
        byte[] frame = WireFrames.Client(0xC1, ReferenceDeflate.Compress(json, CompressionLevel.Fastest)); // FIN, RSV1, Text
        int perBatch = Math.Max(1, 64 * 1024 / frame.Length);
        byte[] batch = [.. Enumerable.Range(0, perBatch).SelectMany(_ => frame)];
        Task<long> reader = Task.Run(() => loop.DiscardToEndAsync());
        CancellationToken timeout = Loopback.Timeout(60);
        int sent = 0;
        while (sent < 12_000)
        {
            await loop.SendAsync(batch, timeout);
            sent += perBatch;
        }

        await loop.SendAsync(WireFrames.ClientClose(1000));
        await run.WaitAsync(Loopback.Timeout(60));
        long echoed = await reader;

        Assert.Equal(sent, echo!.Frames);
        Assert.Equal(0, echo.Rsv); // the listener saw inflated messages only
        Assert.True(echoed < (long)sent * json.Length / 2, $"{echoed} bytes echoed for {sent} messages of {json.Length}: not compressed");
        Assert.True(echo.Pairs > 1_000, $"only {echo.Pairs} message pairs shared a read");
        double perMessage = echo.Allocated / (double)echo.Pairs;
        output.WriteLine($"{perMessage:F1} bytes allocated per message over {echo.Pairs}; {echoed / (double)sent:F1} bytes echoed per message of {json.Length}");
        if (contextTakeover)
        {
            Assert.True(perMessage < 1.0, $"{echo.Allocated} bytes over {echo.Pairs} messages");
        }
        else
        {
            Assert.True(perMessage < 4096, $"{perMessage:F0} bytes per message without context takeover");
        }
    }

    private static byte[] Json(int length)
    {
        var text = new StringBuilder();
        for (int i = 0; text.Length < length; i++)
        {
            text.Append("{\"id\":").Append(i).Append(",\"name\":\"user").Append(i % 7).Append("\",\"online\":true},");
        }

        return Encoding.UTF8.GetBytes(text.ToString(0, length));
    }
}
