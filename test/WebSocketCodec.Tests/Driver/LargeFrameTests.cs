using System.Buffers;

namespace WebSocketCodec.Tests.Driver;

/// <summary>A frame larger than the host's chunk is written in pieces across chunks (no contiguous buffer asked of the
/// host), masked with the key's phase carried across them, and reads back whole.</summary>
public sealed class LargeFrameTests
{
    [Theory]
    [InlineData(WebSocketRole.Client, 10_001)] // masked, the pieces' lengths not multiples of 4
    [InlineData(WebSocketRole.Server, 10_001)]
    [InlineData(WebSocketRole.Client, 70_000)]
    [InlineData(WebSocketRole.Server, 4_000)] // under the contiguous size: one piece
    public async Task AFrameLargerThanAChunkIsWrittenAcrossChunksAndReadsBackWhole(WebSocketRole role, int length)
    {
        var transport = new BufferTransport(chunkSize: 4096);
        using var driver = new WebSocketDriver(transport, role);
        driver.Start(new IgnoringListener());
        byte[] small = [1, 2, 3];
        byte[] payload = new byte[length];
        new Random(length).NextBytes(payload);
        await driver.Sender.SendAsync(WebSocketOpcode.Binary, small); // the chunk held is partly used
        await driver.Sender.SendAsync(WebSocketOpcode.Binary, payload);
        Assert.True(await driver.Sender.FlushedAsync().WaitAsync(TimeSpan.FromSeconds(10)));

        ReadOnlySpan<byte> wire = transport.Committed;
        Assert.Equal(small, ReadFrame(ref wire));
        Assert.Equal(payload, ReadFrame(ref wire));
        Assert.True(wire.IsEmpty);
        Assert.Equal(length > 4096, transport.Commits > 2); // written into several chunks, none larger than asked
    }

    private static byte[] ReadFrame(ref ReadOnlySpan<byte> wire)
    {
        Assert.Equal(OperationStatus.Done, FrameHeaderReader.Read(wire, long.MaxValue, out FrameHeader header, out _, out _));
        byte[] payload = wire.Slice(header.HeaderLength, (int)header.PayloadLength).ToArray();
        if (header.IsMasked)
        {
            WebSocketMask.Apply(payload, header.MaskKey);
        }

        wire = wire[(header.HeaderLength + (int)header.PayloadLength)..];
        return payload;
    }

    private sealed class IgnoringListener : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
        }
    }
}
