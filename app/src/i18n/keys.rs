//! Every translatable string's key. The enum makes a typo a compile error in the app; the
//! catalog tests make a key missing from any locale file a test failure.

macro_rules! keys {
    ($($variant:ident => $id:literal,)*) => {
        /// A user-facing string.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Key { $($variant,)* }

        impl Key {
            /// Every key, in catalog order.
            pub const ALL: &'static [Key] = &[$(Key::$variant,)*];

            /// The key's id in the locale files (`sidebar.new_chat`).
            pub fn id(self) -> &'static str {
                match self { $(Key::$variant => $id,)* }
            }
        }
    };
}

keys! {
    AppName => "app.name",
    SkipToComposer => "app.skip_to_composer",
    SidebarLabel => "sidebar.label",
    SidebarOpen => "sidebar.open",
    SidebarClose => "sidebar.close",
    SidebarNewChat => "sidebar.new_chat",
    SidebarConversations => "sidebar.conversations",
    SidebarEmpty => "sidebar.empty",
    SidebarEmptyHint => "sidebar.empty_hint",
    SidebarSettings => "sidebar.settings",
    TopbarNewChat => "topbar.new_chat",
    ThemeMenu => "theme.menu",
    ThemeSystem => "theme.system",
    ThemeLight => "theme.light",
    ThemeDark => "theme.dark",
    EmptyTitle => "empty.title",
    EmptyBody => "empty.body",
    EmptyOpenSettings => "empty.open_settings",
    ComposerLabel => "composer.label",
    ComposerPlaceholder => "composer.placeholder",
    ComposerSend => "composer.send",
    ComposerHint => "composer.hint",
    ComposerNoProvider => "composer.no_provider",
    SettingsTitle => "settings.title",
    SettingsSections => "settings.sections",
    SettingsTabGeneral => "settings.tab.general",
    SettingsTabAbout => "settings.tab.about",
    SettingsAppearance => "settings.appearance",
    SettingsLanguage => "settings.language",
    SettingsLanguageAuto => "settings.language_auto",
    SettingsLanguageHint => "settings.language_hint",
    AboutAppVersion => "about.app_version",
    AboutEdgeVersion => "about.edge_version",
    AboutMode => "about.mode",
    AboutModeLocal => "about.mode_local",
    AboutModeHosted => "about.mode_hosted",
    AboutChecking => "about.checking",
    AboutEdgeUnreachable => "about.edge_unreachable",
    AboutPrivacy => "about.privacy",
    DialogClose => "dialog.close",
    ToastDismiss => "toast.dismiss",
    ToastRegion => "toast.region",
    ImageBlocked => "image.blocked",
    AccessTitle => "access.title",
    AccessBody => "access.body",
    AccessPassword => "access.password",
    AccessSubmit => "access.submit",
    AccessChecking => "access.checking",
    AccessEmpty => "access.empty",
    AccessInvalid => "access.invalid",
    AccessLocked => "access.locked",
    AccessUnreachable => "access.unreachable",
    SettingsTabProviders => "settings.tab.providers",
    ProvidersEmpty => "providers.empty",
    ProvidersAdd => "providers.add",
    ProvidersLoading => "providers.loading",
    ProvidersFailed => "providers.failed",
    ProviderAddTitle => "provider.add_title",
    ProviderEditTitle => "provider.edit_title",
    ProviderType => "provider.type",
    ProviderName => "provider.name",
    ProviderBaseUrl => "provider.base_url",
    ProviderApiKey => "provider.api_key",
    ProviderApiKeyKeep => "provider.api_key_keep",
    ProviderApiKeyHint => "provider.api_key_hint",
    ProviderSave => "provider.save",
    ProviderCancel => "provider.cancel",
    ProviderEdit => "provider.edit",
    ProviderDelete => "provider.delete",
    ProviderEnabled => "provider.enabled",
    ProviderNoKey => "provider.no_key",
    ProviderSaved => "provider.saved",
    ProviderDeleted => "provider.deleted",
    ProviderSaveFailed => "provider.save_failed",
    ProviderErrorName => "provider.error_name",
    ProviderErrorNameLong => "provider.error_name_long",
    ProviderErrorUrl => "provider.error_url",
    ProviderErrorKey => "provider.error_key",
    ProviderKindOpenai => "provider.kind.openai",
    ProviderKindOpenaiResponses => "provider.kind.openai_responses",
    ProviderKindAnthropic => "provider.kind.anthropic",
    ProviderKindGemini => "provider.kind.gemini",
    ProviderKindCompatible => "provider.kind.compatible",
    ProviderModels => "provider.models",
    ProviderModelsLoading => "provider.models_loading",
    ProviderModelsCount => "provider.models_count",
    ProviderModelsViaRelay => "provider.models_via_relay",
    ProviderModelsFailed => "provider.models_failed",
}
