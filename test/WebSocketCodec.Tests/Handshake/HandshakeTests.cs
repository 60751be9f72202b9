using System.Security.Cryptography;

namespace WebSocketCodec.Tests.Handshake;

public class HandshakeTests
{
    [Fact]
    public void RfcSection13ExampleGivesItsAcceptValue()
    {
        // RFC 6455 §1.3: key "dGhlIHNhbXBsZSBub25jZQ==" is answered with "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
        Assert.Equal("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", WebSocketHandshake.ComputeAccept("dGhlIHNhbXBsZSBub25jZQ=="));
        Span<byte> accept = stackalloc byte[28];
        Assert.Equal(28, WebSocketHandshake.ComputeAccept("dGhlIHNhbXBsZSBub25jZQ=="u8, accept));
        Assert.True(accept.SequenceEqual("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="u8));
        Assert.True(WebSocketHandshake.IsValidAccept("dGhlIHNhbXBsZSBub25jZQ=="u8, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="u8));
        Assert.False(WebSocketHandshake.IsValidAccept("dGhlIHNhbXBsZSBub25jZQ=="u8, "s3pPLMBiTxaQ9kYGzzhZRbK+xOp="u8));
    }

    [Fact]
    public void CreatedKeysAreValidDistinctAndAcceptedLikeAnyOther()
    {
        var keys = Enumerable.Range(0, 100).Select(_ => WebSocketHandshake.CreateKey()).ToArray();
        Assert.Equal(100, keys.Distinct().Count());
        foreach (string key in keys)
        {
            Assert.Equal(24, key.Length);
            Assert.Equal(16, Convert.FromBase64String(key).Length);
            Assert.True(WebSocketHandshake.IsValidKey(key));
#pragma warning disable CA5350 // the RFC's own algorithm, computed independently as the oracle
            string expected = Convert.ToBase64String(SHA1.HashData(System.Text.Encoding.ASCII.GetBytes(key + WebSocketHandshake.KeyGuid)));
#pragma warning restore CA5350
            Assert.Equal(expected, WebSocketHandshake.ComputeAccept(key));
        }
    }

    [Theory]
    [InlineData("")]
    [InlineData("short")]
    [InlineData("dGhlIHNhbXBsZSBub25jZQ=")] // 23 characters
    [InlineData("dGhlIHNhbXBsZSBub25jZQ===")] // 25 characters
    [InlineData("dGhlIHNhbXBsZSBub25jZ===")] // 24 characters, but not 16 bytes
    [InlineData("AAAAAAAAAAAAAAAAAAAAAA==A")]
    [InlineData("dGhlIHNhbXBsZSBub25jZUE=")] // base64 of 17 bytes
    [InlineData("dGhlIHNhbXBsZSBub25j$Q==")] // not base64
    [InlineData("dGhlIHNhbXBsZSBub25jZé==")] // not ASCII
    public void MalformedKeysAreRefused(string key)
    {
        Assert.False(WebSocketHandshake.IsValidKey(key));
        Assert.False(WebSocketHandshake.IsValidKey(System.Text.Encoding.UTF8.GetBytes(key)));
    }

    [Fact]
    public void NonAsciiKeyCannotBeAnswered()
    {
        Assert.Throws<ArgumentException>(() => WebSocketHandshake.ComputeAccept("κλειδί"));
    }
}
