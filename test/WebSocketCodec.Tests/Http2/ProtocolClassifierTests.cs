using WebSocketCodec.Tests.Infrastructure;

namespace WebSocketCodec.Tests.Http2;

/// <summary><see cref="HttpProtocolClassifier"/>: HTTP/2 prior knowledge on its preface's last byte however it is split,
/// HTTP/1.x on the space after the method, unrecognised bytes as soon as they rule both out.</summary>
public sealed class ProtocolClassifierTests
{
    private static readonly byte[] Preface = System.Text.Encoding.ASCII.GetBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

    [Fact]
    public void EveryStrictPrefixOfThePrefaceNeedsMoreAndTheWholeIsHttp2()
    {
        Assert.Equal(24, Preface.Length);
        Assert.True(HttpProtocolClassifier.Http2Preface.SequenceEqual(Preface));
        for (int length = 0; length < Preface.Length; length++)
        {
            Assert.Equal(HttpProtocolGuess.NeedMoreData, HttpProtocolClassifier.Classify(Preface.AsSpan(0, length)));
        }

        Assert.Equal(HttpProtocolGuess.Http2, HttpProtocolClassifier.Classify(Preface));
        byte[] withFrames = [.. Preface, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00]; // an empty SETTINGS behind
        Assert.Equal(HttpProtocolGuess.Http2, HttpProtocolClassifier.Classify(withFrames));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(5)]
    [InlineData(23)]
    public void APrefaceSplitOverSegmentsIsClassifiedAsAWhole(int split)
    {
        byte[] withFrames = [.. Preface, 0x00, 0x00, 0x00];
        Assert.Equal(HttpProtocolGuess.Http2, HttpProtocolClassifier.Classify(Segments.Split(withFrames, split)));
        Assert.Equal(HttpProtocolGuess.NeedMoreData, HttpProtocolClassifier.Classify(Segments.Split(Preface.AsSpan(0, 23).ToArray(), Math.Min(split, 22))));
    }

    [Theory]
    [InlineData("GET / HTTP/1.1\r\n", 4)]
    [InlineData("PRI / HTTP/1.1\r\n", 5)] // the preface's first word, then another request
    [InlineData("PRI * HTTP/1.1\r\n", 12)] // equal to the preface up to its version: the version's digit tells
    [InlineData("OPTIONS * HTTP/1.1\r\n", 8)]
    [InlineData("M-SEARCH * HTTP/1.1\r\n", 9)]
    [InlineData("UPDATEREDIRECTREF / HTTP/1.1\r\n", 18)]
    public void AnHttp1RequestIsRecognisedOnTheSpaceAfterItsMethod(string request, int decidingLength)
    {
        byte[] bytes = System.Text.Encoding.ASCII.GetBytes(request);
        for (int length = 0; length < decidingLength; length++)
        {
            Assert.NotEqual(HttpProtocolGuess.Http1, HttpProtocolClassifier.Classify(bytes.AsSpan(0, length)));
            Assert.NotEqual(HttpProtocolGuess.Unrecognized, HttpProtocolClassifier.Classify(bytes.AsSpan(0, length)));
        }

        Assert.Equal(HttpProtocolGuess.Http1, HttpProtocolClassifier.Classify(bytes.AsSpan(0, decidingLength)));
        Assert.Equal(HttpProtocolGuess.Http1, HttpProtocolClassifier.Classify(bytes));
        Assert.Equal(HttpProtocolGuess.Http1, HttpProtocolClassifier.Classify(Segments.Split(bytes, 2)));
    }

    [Theory]
    [InlineData(new byte[] { 0x16, 0x03, 0x01, 0x00, 0xA5 })] // a TLS ClientHello on the cleartext port
    [InlineData(new byte[] { (byte)' ', (byte)'G', (byte)'E', (byte)'T' })] // no method before the space
    [InlineData(new byte[] { (byte)'\r', (byte)'\n' })]
    [InlineData(new byte[] { (byte)'G', (byte)'E', (byte)'T', (byte)'\t' })] // not a tchar
    [InlineData(new byte[] { (byte)'P', (byte)'R', (byte)'I', 0 })]
    [InlineData(new byte[] { (byte)'G', (byte)'E', (byte)'T', (byte)'/' })] // '/' is not a tchar (RFC 9110 section 5.6.2)
    public void BytesThatStartNoRequestAreUnrecognised(byte[] junk) =>
        Assert.Equal(HttpProtocolGuess.Unrecognized, HttpProtocolClassifier.Classify(junk));

    [Fact]
    public void AMethodLongerThanAnyRealOneIsUnrecognisedAfterItsLimit()
    {
        byte[] method = System.Text.Encoding.ASCII.GetBytes(new string('A', HttpProtocolClassifier.MaxMethodLength + 5) + " / HTTP/1.1\r\n");
        Assert.Equal(HttpProtocolGuess.NeedMoreData, HttpProtocolClassifier.Classify(method.AsSpan(0, HttpProtocolClassifier.MaxMethodLength)));
        Assert.Equal(HttpProtocolGuess.Unrecognized, HttpProtocolClassifier.Classify(method.AsSpan(0, HttpProtocolClassifier.MaxMethodLength + 1)));
        Assert.Equal(HttpProtocolGuess.Unrecognized, HttpProtocolClassifier.Classify(method));

        byte[] longest = System.Text.Encoding.ASCII.GetBytes(new string('A', HttpProtocolClassifier.MaxMethodLength) + " / HTTP/1.1\r\n");
        Assert.Equal(HttpProtocolGuess.Http1, HttpProtocolClassifier.Classify(longest));
    }
}
