// The seed's extension runs as any Appex extension does (`@main` on the seed's own struct is the
// one thing its listing leaves to the template; here it is this call).
MyAppExtension.main()
