using System.Buffers;

namespace WebSocketCodec.Pipelines.Tests.Connection;

/// <summary>The three encoder tiers on the pipe, byte for byte, from the read loop and from other threads.</summary>
public sealed class SenderTests
{
    private static byte[] Expected(params (WebSocketOpcode Opcode, byte[] Payload, bool Fin)[] frames)
    {
        var encoder = new FrameEncoder(WebSocketRole.Server);
        var writer = new ArrayBufferWriter<byte>();
        foreach (var (opcode, payload, fin) in frames)
        {
            encoder.Write(writer, opcode, payload, fin);
        }

        return writer.WrittenSpan.ToArray();
    }

    private sealed class TierEcho(WebSocketFrameSender sender) : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            switch (payload[0])
            {
                case 1: // tier 1: reserve, fill, commit
                    ReservedFrame frame = sender.Reserve(WebSocketOpcode.Binary, payload.Length);
                    payload.CopyTo(frame.Payload);
                    frame.Commit();
                    break;
                case 2: // tier 2: the header in front of a payload already in a buffer of ours
                    byte[] buffer = new byte[16 + payload.Length];
                    payload.CopyTo(buffer.AsSpan(16));
                    sender.SendPrefixed(buffer, 16, payload.Length, WebSocketOpcode.Binary);
                    break;
                default: // tier 3: bulk, three frames in one buffer
                    BulkFrameWriter bulk = sender.BeginBulk(64);
                    bulk.Add(WebSocketOpcode.Binary, payload);
                    bulk.Add(WebSocketOpcode.Text, "t"u8, fin: false);
                    bulk.Add(WebSocketOpcode.Continuation, "u"u8);
                    bulk.Complete();
                    break;
            }
        }
    }

    [Theory]
    [InlineData(1, 1)]
    [InlineData(1, 126)]
    [InlineData(2, 5)]
    [InlineData(2, 70_000)]
    [InlineData(3, 3)]
    [InlineData(3, 200)]
    public async Task EachTierWritesTheSameBytesAsTheCoreEncoder(byte tier, int length)
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        Task<WebSocketCloseInfo> run = channel.RunAsync(sender => new TierEcho(sender), Loopback.Timeout());
        byte[] payload = new byte[length];
        new Random(length).NextBytes(payload);
        payload[0] = tier;
        await loop.SendAsync([.. WireFrames.Client(WebSocketOpcode.Binary, payload), .. WireFrames.ClientClose(1000)]);
        await run.WaitAsync(Loopback.Timeout());
        byte[] wire = await loop.ReadToEndAsync();

        byte[] echo = tier == 3
            ? Expected((WebSocketOpcode.Binary, payload, true), (WebSocketOpcode.Text, "t"u8.ToArray(), false), (WebSocketOpcode.Continuation, "u"u8.ToArray(), true))
            : Expected((WebSocketOpcode.Binary, payload, true));
        Assert.Equal([.. echo, .. Expected((WebSocketOpcode.Close, [0x03, 0xE8], true))], wire);
    }

    [Fact]
    public async Task OffLoopSendsAreOrderedWholeFramesAndSyncSendsAreRefused()
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());
        Assert.False(channel.Sender.IsOnReadLoop);
        Assert.Throws<InvalidOperationException>(() => channel.Sender.Send(WebSocketOpcode.Text, "x"u8));

        // Four threads, 200 frames each, every frame's payload names its thread and sequence.
        await Task.WhenAll(Enumerable.Range(0, 4).Select(t => Task.Run(async () =>
        {
            for (int i = 0; i < 200; i++)
            {
                await channel.Sender.SendAsync(WebSocketOpcode.Binary, new byte[] { (byte)t, (byte)i, 0, 0, 0, 0, 0, 0, 0, 0 });
            }
        })));
        await channel.Sender.SendBulkAsync(static (ref BulkFrameWriter bulk, int n) =>
        {
            for (int i = 0; i < n; i++)
            {
                bulk.Add(WebSocketOpcode.Binary, [9, (byte)i]);
            }
        }, 3);
        await loop.SendAsync(WireFrames.ClientClose(1000));
        await run.WaitAsync(Loopback.Timeout());

        var frames = WireFrames.Read(await loop.ReadToEndAsync(), WebSocketRole.Client, validateUtf8: false);
        Assert.Equal(4 * 200 + 3 + 1, frames.Count);
        for (int t = 0; t < 4; t++)
        {
            Assert.Equal(Enumerable.Range(0, 200).Select(i => (byte)i), frames.Where(f => f.Payload.Length == 10 && f.Payload[0] == t).Select(f => f.Payload[1]));
        }

        Assert.Equal([0, 1, 2], frames.Where(f => f.Payload.Length == 2 && f.Payload[0] == 9).Select(f => (int)f.Payload[1]));
        Assert.Equal(WebSocketOpcode.Close, frames[^1].Opcode);
    }

    [Fact]
    public async Task FragmentOrderIsEnforced()
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        _ = channel.RunAsync(new RecordingListener(), Loopback.Timeout());
        await Assert.ThrowsAsync<InvalidOperationException>(() => channel.Sender.SendAsync(WebSocketOpcode.Continuation, "x"u8.ToArray()).AsTask());
        await channel.Sender.SendAsync(WebSocketOpcode.Text, "a"u8.ToArray(), fin: false);
        await Assert.ThrowsAsync<InvalidOperationException>(() => channel.Sender.SendAsync(WebSocketOpcode.Binary, "b"u8.ToArray()).AsTask());
        await channel.Sender.SendAsync(WebSocketOpcode.Ping, "p"u8.ToArray()); // control frames may interleave
        await channel.Sender.SendAsync(WebSocketOpcode.Continuation, "c"u8.ToArray());
        channel.Abort();
    }
}
