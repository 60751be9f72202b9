using System.Buffers;

namespace WebSocketCodec.Tests.Http1;

/// <summary>The head parser over bytes in segments (a pipe's buffer): the same answers as over one span.</summary>
public class HttpHeadSequenceTests
{
    private const string Request = "GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\nframe";

    [Theory]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(30)]
    public void AHeadCutAcrossSegmentsParsesAsOneAndLeavesWhatFollows(int cut)
    {
        byte[] bytes = System.Text.Encoding.ASCII.GetBytes(Request);
        ReadOnlySequence<byte> source = Segments(bytes, cut);
        Assert.False(source.IsSingleSegment);

        Assert.Equal(OperationStatus.Done, HttpHeadParser.TryParse(source, out HttpHead? head, out int length, out _));
        Assert.Equal(Request.Length - "frame".Length, length);
        Assert.Equal("/echo", head!.Target);
        Assert.Equal("websocket", head["Upgrade"]);
    }

    [Fact]
    public void AnIncompleteHeadNeedsMoreAndATooLongOneIsInvalidAcrossSegments()
    {
        byte[] partial = System.Text.Encoding.ASCII.GetBytes("GET /echo HTTP/1.1\r\nHost: x\r\n");
        Assert.Equal(OperationStatus.NeedMoreData, HttpHeadParser.TryParse(Segments(partial, 5), out _, out _, out _));

        byte[] tooLong = System.Text.Encoding.ASCII.GetBytes("GET /echo HTTP/1.1\r\nX-Filler: " + new string('a', 300) + "\r\n\r\n");
        Assert.Equal(OperationStatus.InvalidData, HttpHeadParser.TryParse(Segments(tooLong, 64), out _, out _, out HttpHeadError error, maxHeadLength: 128));
        Assert.Equal(OperationStatus.InvalidData, HttpHeadParser.TryParse(tooLong.AsSpan(), out _, out _, out HttpHeadError spanError, maxHeadLength: 128));
        Assert.Equal(spanError, error);
    }

    private static ReadOnlySequence<byte> Segments(byte[] bytes, int size)
    {
        Segment first = new(bytes.AsMemory(0, Math.Min(size, bytes.Length)));
        Segment last = first;
        for (int offset = size; offset < bytes.Length; offset += size)
        {
            last = last.Append(bytes.AsMemory(offset, Math.Min(size, bytes.Length - offset)));
        }

        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory) => Memory = memory;

        public Segment Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory) { RunningIndex = RunningIndex + Memory.Length };
            Next = next;
            return next;
        }
    }
}
