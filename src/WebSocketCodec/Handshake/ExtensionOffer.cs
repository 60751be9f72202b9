namespace WebSocketCodec;

/// <summary>
/// One element of a <c>Sec-WebSocket-Extensions</c> value (RFC 6455 §9.1):
/// <c>extension-token *( ";" extension-param )</c>, <c>extension-param = token [ "=" (token | quoted-string) ]</c>.
/// Enumerate a whole header with <see cref="HeaderListEnumerator"/> and parse each element with <see cref="TryParse"/>.
/// </summary>
internal readonly ref struct ExtensionOffer
{
    private ExtensionOffer(ReadOnlySpan<char> name, ReadOnlySpan<char> parameters)
    {
        Name = name;
        RawParameters = parameters;
    }

    /// <summary>The extension's name, e.g. <c>permessage-deflate</c>.</summary>
    public ReadOnlySpan<char> Name { get; }

    /// <summary>Everything after the name's first <c>;</c>, unparsed.</summary>
    public ReadOnlySpan<char> RawParameters { get; }

    /// <summary>The parameters, validated by <see cref="TryParse"/>.</summary>
    public ExtensionParameterEnumerator Parameters => new(RawParameters);

    /// <summary>Parses and validates one list element.</summary>
    /// <returns><see langword="false"/> when the element is malformed.</returns>
    public static bool TryParse(ReadOnlySpan<char> element, out ExtensionOffer offer)
    {
        offer = default;
        int semicolon = element.IndexOf(';');
        ReadOnlySpan<char> name = HttpToken.TrimOws(semicolon < 0 ? element : element.Slice(0, semicolon));
        ReadOnlySpan<char> parameters = semicolon < 0 ? default : element.Slice(semicolon + 1);
        if (!HttpToken.IsToken(name) || (semicolon >= 0 && HttpToken.TrimOws(parameters).IsEmpty))
        {
            return false; // no name, or a ';' with no parameter after it
        }

        var enumerator = new ExtensionParameterEnumerator(parameters);
        while (enumerator.MoveNext())
        {
        }

        if (enumerator.Malformed)
        {
            return false;
        }

        offer = new ExtensionOffer(name, parameters);
        return true;
    }
}
