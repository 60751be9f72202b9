using System.Buffers;
using System.IO.Pipelines;
using System.Net.WebSockets;
using System.Text;

namespace WebSocketCodec.Pipelines.Tests.Connection;

/// <summary>
/// Random streams of messages (fragmented or whole, text and binary, 0 to 70,000 bytes, Pings between fragments) cut
/// into random writes, so headers and payloads straddle pipe segments and reads at every kind of place: every message
/// comes back whole, every Ping is answered in order, and no pooled buffer is kept.
/// </summary>
public sealed class RandomStreamTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    [InlineData(6)]
    [InlineData(7)]
    [InlineData(8)]
    public async Task RandomStreamsCutAnywhereArriveIntact(int seed)
    {
        var random = new Random(seed);
        var encoder = new FrameEncoder(WebSocketRole.Client);
        var wire = new ArrayBufferWriter<byte>();
        var expected = new List<(WebSocketMessageType Type, byte[] Payload)>();
        var pings = new List<byte[]>();
        for (int m = 0; m < 40; m++)
        {
            bool text = random.Next(2) == 0;
            int length = random.Next(4) switch { 0 => random.Next(0, 8), 1 => random.Next(100, 130), 2 => random.Next(60_000, 70_000), _ => random.Next(0, 5000) };
            byte[] payload = text ? Encoding.UTF8.GetBytes(new string((char)random.Next(0x20, 0x7FF), length / 2)) : new byte[length];
            if (!text)
            {
                random.NextBytes(payload);
            }

            expected.Add((text ? WebSocketMessageType.Text : WebSocketMessageType.Binary, payload));
            int offset = 0;
            bool first = true;
            do
            {
                int size = random.Next(3) == 0 ? payload.Length - offset : Math.Min(payload.Length - offset, random.Next(0, 3000));
                bool fin = offset + size == payload.Length;
                var opcode = first ? (text ? WebSocketOpcode.Text : WebSocketOpcode.Binary) : WebSocketOpcode.Continuation;
                encoder.Write(wire, opcode, payload.AsSpan(offset, size), fin);
                offset += size;
                first = false;
                if (!fin && random.Next(4) == 0)
                {
                    byte[] ping = new byte[random.Next(0, 126)];
                    random.NextBytes(ping);
                    pings.Add(ping);
                    encoder.Write(wire, WebSocketOpcode.Ping, ping);
                }
            }
            while (offset < payload.Length);
        }

        encoder.Write(wire, WebSocketOpcode.Close, [0x03, 0xE8]);

        var loop = new Loopback();
        var pool = new CountingPool();
        var received = new List<(WebSocketMessageType, byte[])>();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, new WebSocketSessionOptions { Pool = pool });
        Task<WebSocketCloseInfo> run = channel.RunAsync(
            sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, (_, type, payload) => received.Add((type, payload.ToArray())), pool),
            Loopback.Timeout(30));
        byte[] bytes = wire.WrittenSpan.ToArray();
        for (int offset = 0; offset < bytes.Length;)
        {
            int size = Math.Min(bytes.Length - offset, random.Next(3) switch { 0 => random.Next(1, 16), 1 => random.Next(1, 5000), _ => random.Next(1, 70_000) });
            await loop.SendAsync(bytes.AsSpan(offset, size).ToArray());
            offset += size;
        }

        WebSocketCloseInfo info = await run.WaitAsync(Loopback.Timeout(30));
        Assert.True(info.IsClean, info.ToString());
        Assert.Equal(expected.Count, received.Count);
        for (int i = 0; i < expected.Count; i++)
        {
            Assert.Equal(expected[i].Type, received[i].Item1);
            Assert.Equal(expected[i].Payload, received[i].Item2);
        }

        var answers = WireFrames.Read(await loop.ReadToEndAsync(), WebSocketRole.Client, validateUtf8: false);
        Assert.Equal(pings.Count + 1, answers.Count);
        Assert.Equal(pings, answers.Take(pings.Count).Select(a => a.Payload));
        Assert.Equal(WebSocketOpcode.Close, answers[^1].Opcode);
        Assert.Equal(0, pool.Outstanding);
    }
}
