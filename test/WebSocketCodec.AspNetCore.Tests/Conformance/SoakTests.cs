using System.Text;

namespace WebSocketCodec.AspNetCore.Tests.Conformance;

/// <summary>
/// A short soak over real sockets: random messages (fragmented or whole, Pings between fragments) sent to the demo
/// server in random pieces, cleartext and TLS; every message is echoed whole and every Ping answered.
/// </summary>
public abstract class SoakTests
{
    /// <summary>Opens a websocket to the echo of the server under test, in cleartext or over TLS.</summary>
    protected abstract Task<RawWebSocket> OpenAsync(bool tls);

    [Theory]
    [InlineData(false, 11)]
    [InlineData(true, 12)]
    [InlineData(false, 13)]
    public async Task RandomTrafficIsEchoedWhole(bool tls, int seed)
    {
        var random = new Random(seed);
        var wire = new List<byte>();
        var messages = new List<(WebSocketOpcode Opcode, byte[] Payload)>();
        var pings = new List<byte[]>();
        for (int m = 0; m < 60; m++)
        {
            bool text = random.Next(2) == 0;
            int length = random.Next(3) switch { 0 => random.Next(0, 126), 1 => random.Next(126, 3000), _ => random.Next(60_000, 70_001) };
            byte[] payload = text ? Encoding.UTF8.GetBytes(new string((char)random.Next(0x41, 0x3FF), length / 2)) : new byte[length];
            if (!text)
            {
                random.NextBytes(payload);
            }

            messages.Add((text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload));
            int offset = 0;
            do
            {
                int size = random.Next(2) == 0 ? payload.Length - offset : Math.Min(payload.Length - offset, random.Next(1, 2000));
                bool fin = offset + size == payload.Length;
                wire.AddRange(WireFrames.Client(offset == 0 ? (text ? WebSocketOpcode.Text : WebSocketOpcode.Binary) : WebSocketOpcode.Continuation, payload.AsSpan(offset, size), fin));
                offset += size;
                if (!fin && random.Next(3) == 0)
                {
                    byte[] ping = [(byte)pings.Count, (byte)m];
                    pings.Add(ping);
                    wire.AddRange(WireFrames.Client(WebSocketOpcode.Ping, ping));
                }
            }
            while (offset < payload.Length);
        }

        wire.AddRange(WireFrames.ClientClose(1000));
        await using RawWebSocket socket = await OpenAsync(tls);
        byte[] bytes = [.. wire];
        // Read while writing: the echoes (about a megabyte) must not wait for the sends to finish.
        var reading = socket.ReadUntilCloseAsync(answer: false);
        for (int offset = 0; offset < bytes.Length;)
        {
            int size = Math.Min(bytes.Length - offset, random.Next(2) == 0 ? random.Next(1, 20) : random.Next(1, 40_000));
            await socket.SendAsync(bytes.AsSpan(offset, size).ToArray());
            offset += size;
        }

        var (status, before) = await reading;
        Assert.Equal(1000, status);
        var echoes = before.Where(f => f.Opcode != WebSocketOpcode.Pong).ToList();
        Assert.Equal(messages.Count, echoes.Count);
        for (int i = 0; i < messages.Count; i++)
        {
            Assert.Equal(messages[i].Opcode, echoes[i].Opcode);
            Assert.Equal(messages[i].Payload, echoes[i].Payload);
        }

        Assert.Equal(pings, before.Where(f => f.Opcode == WebSocketOpcode.Pong).Select(f => f.Payload));
    }
}

/// <summary>The soak against the demo server on Kestrel.</summary>
public sealed class KestrelSoakTests(EchoServersFixture servers) : SoakTests, IClassFixture<EchoServersFixture>
{
    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.Get(tls));
}

/// <summary>The soak against the demo server on the lean transport (<c>--transport lean</c>).</summary>
public sealed class LeanSoakTests(LeanEchoServersFixture servers) : SoakTests, IClassFixture<LeanEchoServersFixture>
{
    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.Get(tls).Url, servers.Get(tls).EndPoint);
}
