namespace WebSocketCodec.Tests.Session;

public class MessageAssemblerTests
{
    [Fact]
    public void FragmentsAreJoinedAndTheBufferChangesHands()
    {
        var pool = new CountingPool();
        using var assembler = new MessageAssembler(pool);
        var expected = new List<byte>();
        assembler.Append(WebSocketOpcode.Text, "a"u8);
        expected.Add((byte)'a');
        for (int i = 0; i < 300; i++)
        {
            byte[] piece = Enumerable.Repeat((byte)('b' + (i % 20)), i).ToArray();
            assembler.Append(WebSocketOpcode.Continuation, piece);
            expected.AddRange(piece);
        }

        Assert.True(assembler.IsText);
        Assert.Equal(expected.Count, assembler.Length);
        Assert.Equal(expected, assembler.Peek().ToArray());
        assembler.Detach(out byte[] buffer, out int length);
        Assert.Equal(expected, buffer.AsSpan(0, length).ToArray());
        Assert.False(assembler.InMessage);
        Assert.Equal(1, pool.Outstanding); // the detached buffer is the caller's now
        pool.Return(buffer);
        Assert.Throws<InvalidOperationException>(() => assembler.Detach(out _, out _));
    }

    [Fact]
    public void ANewMessageBeforeTheLastWasTakenIsABug()
    {
        using var assembler = new MessageAssembler();
        assembler.Append(WebSocketOpcode.Binary, [1]);
        Assert.Throws<InvalidOperationException>(() => assembler.Append(WebSocketOpcode.Text, [2]));
    }

    [Fact]
    public void DisposeReturnsTheBuffer()
    {
        var pool = new CountingPool();
        var assembler = new MessageAssembler(pool);
        assembler.Append(WebSocketOpcode.Binary, new byte[5000]);
        assembler.Reset();
        assembler.Append(WebSocketOpcode.Binary, new byte[10]);
        Assert.Equal(1, pool.Outstanding);
        assembler.Dispose();
        Assert.Equal(0, pool.Outstanding);
    }
}
